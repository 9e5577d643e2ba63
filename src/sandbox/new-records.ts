// The steps the create calls (POST clients, POST payments) share once a body has parsed: the timezone rule
// and appending the new record under the next id. A record holds exactly its resource's fields, so a
// write-only body field (password, card token) can never reach the state. No I/O.
import { SandboxError } from './errors.js';
import { nextId, type SandboxState } from './state.js';

/** A timezone sent in a body must be null or a name the timezones resource lists, else 400 naming it. */
export function requireKnownTimezone(state: SandboxState, timezone: string | null): void {
  if (timezone !== null && !state.timezones.some((t) => t.name === timezone)) {
    throw new SandboxError('invalid_request', 'timezone must be a time zone name listed by /api/v1/timezones');
  }
}

/**
 * Builds a record from `values` with the next id of `records`, holding `fields` in that order and nothing
 * else, appends it and returns it.
 */
export function appendRecord<R extends { id: number }>(
  records: R[],
  fields: readonly (keyof R & string)[],
  values: Omit<R, 'id'>,
): R {
  const source: Record<string, unknown> = { ...values, id: nextId(records) };
  // Every field is present: `values` is typed as the whole record but its id, and the id is added above.
  const record = Object.fromEntries(fields.map((field) => [field, source[field]])) as R;
  records.push(record);
  return record;
}
