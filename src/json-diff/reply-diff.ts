// Compares one recorded reply with the gateway's: the HTTP status (kind `status`) and the body. A JSON body
// goes through the exact JSON diff; a body that is not JSON (an HTML error page, plain text) is compared as
// text at `$`; an empty body against a non-empty one is `missing` or `extra`.
// Pure: must never do I/O; never throws (an unparsable body is text, not an error).
import { diffJson, type DiffOptions, type DiffResult, type Difference } from './json-diff.js';
import { parseJsonExact, type JsonValue } from '../shared/json-exact.js';
import { ROOT_PATH } from './json-path.js';

/** Path of the status difference: not a JSON path, so no rule can ignore it by accident. */
export const STATUS_PATH = 'HTTP status';

export type ParsedBody = { kind: 'json'; value: JsonValue } | { kind: 'text'; text: string } | { kind: 'empty' };

export interface ReplySnapshot {
  status: number;
  body: ParsedBody;
}

export function parseBody(text: string): ParsedBody {
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'json', value: parseJsonExact(text) };
  } catch {
    return { kind: 'text', text };
  }
}

function bodyValue(body: ParsedBody): JsonValue {
  switch (body.kind) {
    case 'json':
      return body.value;
    case 'text':
      return body.text;
    case 'empty':
      return '';
  }
}

export function diffReplies(expected: ReplySnapshot, actual: ReplySnapshot, options: DiffOptions = {}): DiffResult {
  const differences: Difference[] = [];
  if (expected.status !== actual.status) {
    differences.push({ path: STATUS_PATH, kind: 'status', expected: expected.status, actual: actual.status });
  }
  const e = expected.body;
  const a = actual.body;
  if (e.kind === 'json' && a.kind === 'json') {
    const body = diffJson(e.value, a.value, options);
    return { differences: [...differences, ...body.differences], matchedRuleIds: body.matchedRuleIds };
  }
  if (e.kind === 'empty' && a.kind !== 'empty') {
    differences.push({ path: ROOT_PATH, kind: 'extra', actual: bodyValue(a) });
  } else if (a.kind === 'empty' && e.kind !== 'empty') {
    differences.push({ path: ROOT_PATH, kind: 'missing', expected: bodyValue(e) });
  } else if (e.kind === 'text' && a.kind === 'text') {
    if (e.text !== a.text) differences.push({ path: ROOT_PATH, kind: 'value', expected: e.text, actual: a.text });
  } else if (e.kind !== a.kind) {
    differences.push({ path: ROOT_PATH, kind: 'type', expected: bodyValue(e), actual: bodyValue(a) });
  }
  return { differences, matchedRuleIds: [] };
}
