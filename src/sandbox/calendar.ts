// Date and time strings in the v1 formats (YYYY-MM-DD, HH:MM:SS): checks and arithmetic on plain strings.
// Pure: it must never read the clock; callers pass the instant they mean.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/;

/** True for a real calendar date written YYYY-MM-DD (2023-02-30 is not one). */
export function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** True for a time of day written HH:MM:SS, 00:00:00 to 23:59:59. */
export function isTime(value: string): boolean {
  return TIME.test(value);
}

/** The UTC calendar date of an instant in ms. */
export function dateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `days` after (or before, when negative) a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  return dateOf(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);
}

/** HH:MM:SS of a count of minutes since midnight. */
export function timeOfMinutes(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:00`;
}
