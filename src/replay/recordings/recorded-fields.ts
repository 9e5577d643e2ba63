// The fields a recorded request carries, by name, whatever form the recording kept them in: a JSON body
// (the gateway's recorder stores the payment's parsed fields so), HAR form parameters, or a body kept as
// text (urlencoded, JSON or multipart, by its content type or its look), and the query string. The replay
// reads them to see what a call would send before it sends it: a redacted secret, a payment's client_id.
// Pure: must never do I/O or throw; a body it cannot read has no fields.
import { isJsonObject, parseJsonExact, type JsonValue } from '../../shared/json-exact.js';
import { decodeFormComponent, MULTIPART_FIELD, type HeaderPair } from '../../shared/redact.js';
import type { RecordedExchange } from './recording.js';

/** A field's name and its value as recorded (a JSON body keeps its types: a redacted number is `0`). */
export type RecordedField = readonly [name: string, value: JsonValue];

type RecordedRequest = RecordedExchange['request'];

function formFields(text: string): RecordedField[] {
  if (text === '') return [];
  return text.split('&').map((part): RecordedField => {
    const eq = part.indexOf('=');
    return eq < 0 ? [decodeFormComponent(part), ''] : [decodeFormComponent(part.slice(0, eq)), decodeFormComponent(part.slice(eq + 1))];
  });
}

function objectFields(value: JsonValue): RecordedField[] {
  return isJsonObject(value) ? Object.entries(value) : [];
}

function multipartFields(text: string): RecordedField[] {
  const fields: RecordedField[] = [];
  const field = new RegExp(MULTIPART_FIELD.source, 'gi');
  for (let m = field.exec(text); m !== null; m = field.exec(text)) fields.push([m[2] as string, m[3] as string]);
  return fields;
}

function textFields(text: string, contentType: string): RecordedField[] {
  const type = contentType.toLowerCase();
  if (type.includes('multipart/')) return multipartFields(text);
  const trimmed = text.trimStart();
  if (type.includes('json') || trimmed.startsWith('{')) {
    try {
      return objectFields(parseJsonExact(text));
    } catch {
      // Not JSON after all: read as a form below, if it is one.
    }
  }
  if (type.includes('x-www-form-urlencoded') || (type === '' && /^[^\s=&]+=[^\s]*$/.test(text))) return formFields(text);
  return [];
}

function contentTypeOf(headers: readonly HeaderPair[]): string {
  return headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
}

/** The fields of the request's body, in recorded order. */
export function recordedBodyFields(request: RecordedRequest): RecordedField[] {
  const body = request.body;
  if (body === undefined) return [];
  switch (body.kind) {
    case 'json':
      return objectFields(body.value);
    case 'form':
      return body.fields.map(([name, value]): RecordedField => [name, value]);
    case 'text':
      return textFields(body.text, contentTypeOf(request.headers));
  }
}

/** The fields of the request's query string, decoded. */
export function recordedQueryFields(request: RecordedRequest): RecordedField[] {
  const url = request.url.split('#', 1)[0] ?? '';
  const q = url.indexOf('?');
  return q < 0 ? [] : formFields(url.slice(q + 1));
}
