// How a legacy call was made, as GET /usage counts it: its legacy method and the sorted names of its query
// parameters (`client?email`, `client?first_name&last_name`, `clients`), never their values, `api_key` never
// among them. Names are what an integration's code spells, so only plain ones are kept (letters, digits,
// `_ . - [ ]`, at most 40 characters; others are left out) and at most 10 per shape (`&…` says more were
// sent): a shape stays short whatever a caller sends. The days a call is counted under are UTC days. Pure.

const PARAM_NAME = /^[A-Za-z0-9_.[\]-]{1,40}$/;
const MAX_PARAMS = 10;

/** The shape of a call to `method` with these query parameter names (in any order, repeated or not). */
export function callShape(method: string, paramNames: Iterable<string>): string {
  // Most calls have no query parameters (`/api/clients/0/50`): their shape is the method, with nothing built.
  if (Array.isArray(paramNames) && paramNames.length === 0) return method;
  const names = [...new Set([...paramNames].filter((n) => PARAM_NAME.test(n)))].sort();
  if (names.length === 0) return method;
  const shown = names.slice(0, MAX_PARAMS).join('&');
  return `${method}?${shown}${names.length > MAX_PARAMS ? '&…' : ''}`;
}

const DAY_MS = 86_400_000;

/** The last day written, by its number since the epoch: every call is counted under a day, and most calls of a
 * day follow one another, so the day's text is made once a day rather than once a call. */
let lastDay = { number: Number.NaN, text: '' };

/** `2027-01-12`: the UTC day of a moment (ms since the epoch). */
export function utcDay(ms: number): string {
  const number = Math.floor(ms / DAY_MS);
  if (number !== lastDay.number) lastDay = { number, text: new Date(ms).toISOString().slice(0, 10) };
  return lastDay.text;
}

/** The oldest day kept at `ms` when `keepDays` days are kept, today included. */
export const oldestKeptDay = (ms: number, keepDays: number): string => utcDay(ms - (keepDays - 1) * DAY_MS);
