// Finds the secrets a recording holds only as the redaction marker: RECORD_FILE keeps a payment's card
// token and passwords as "[REDACTED]" (shared/redact.ts). Replaying such a call would send the marker in
// their place, and what comes back (a declined card now "payment added") says nothing about the gateway:
// the runner reports the call as not comparable and never sends it.
// A recorded key needs no such care: `X-API-KEY` and `api_key=` in the query are replaced by the replay's
// own key (run/request-builder.ts), and `Authorization` and `Cookie` are never sent.
// Pure: must never do I/O, and never returns a value, only field names.
import { stringifyExact, type JsonValue } from '../../shared/json-exact.js';
import { isSecretField, redactedLike } from '../../shared/redact.js';
import { recordedBodyFields, recordedQueryFields, type RecordedField } from './recorded-fields.js';
import type { RecordedExchange } from './recording.js';

/** The query parameter the replay fills with its own key (run/request-builder.ts). */
const REPLACED_QUERY_KEY = 'api_key';

/** The marker the redaction puts in place of a secret of this JSON type ("[REDACTED]", 0, false, [], {}). */
function isRedactionMarker(value: JsonValue): boolean {
  return value !== null && stringifyExact(value) === stringifyExact(redactedLike(value));
}

function redactedNames(fields: readonly RecordedField[], skip: (name: string) => boolean): string[] {
  return fields.filter(([name, value]) => isSecretField(name) && !skip(name) && isRedactionMarker(value)).map(([name]) => name);
}

/** Names of the secret fields (body, query) the request would send as a redaction marker; [] if none. */
export function redactedSecretFields(request: RecordedExchange['request']): string[] {
  const names = [
    ...redactedNames(recordedBodyFields(request), () => false),
    ...redactedNames(recordedQueryFields(request), (name) => name.toLowerCase() === REPLACED_QUERY_KEY),
  ];
  return [...new Set(names)];
}
