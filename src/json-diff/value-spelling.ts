// Decides whether two different spellings stand for the same value: `"45.5"` and `"45.50"`, `"09:00"` and
// `"09:00:00"`, `2024-03-05` and `2024-03-05T00:00:00`, JSON numbers `1` and `1.0`. The diff reports such
// pairs as `format` rather than `value`: the client sees the same quantity written another way.
// Conservative on purpose: leading zeros of a numeric string (`"02134"` vs `"2134"`, zip codes, phone
// numbers) and a naive time against a non-UTC offset are different values, never mere formats.
// Pure: must never do I/O, read the clock or the machine's time zone.

/** Canonical form of a JSON number's spelling: equal for equal values (`1`, `1.0`, `1e0`, `10e-1`). */
export function canonicalDecimal(source: string): string | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(source);
  if (!m) return undefined;
  const [, sign, intPart = '', fracPart = '', expPart] = m;
  let digits = (intPart + fracPart).replace(/^0+/, '');
  if (digits === '') return '0';
  let exponent = (expPart ? Number(expPart) : 0) - fracPart.length;
  const trailing = /0+$/.exec(digits);
  if (trailing) {
    digits = digits.slice(0, -trailing[0].length);
    exponent += trailing[0].length;
  }
  return `${sign}${digits}e${exponent}`;
}

const DECIMAL_STRING = /^([+-]?)(\d+)(?:\.(\d*))?$/;

/** `"45.5"` ~ `"45.50"` ~ `"45.500"`, `"45"` ~ `"45.00"`; the integer part must be spelled the same. */
function sameDecimalString(a: string, b: string): boolean {
  const ma = DECIMAL_STRING.exec(a);
  const mb = DECIMAL_STRING.exec(b);
  if (!ma || !mb) return false;
  return ma[1] === mb[1] && ma[2] === mb[2] && (ma[3] ?? '').replace(/0+$/, '') === (mb[3] ?? '').replace(/0+$/, '');
}

/** A plain decimal string's value, for numeric tolerance rules. */
export function decimalStringValue(s: string): number | undefined {
  return DECIMAL_STRING.test(s) ? Number(s) : undefined;
}

interface TimeOfDay {
  seconds: number;
  /** Fractional seconds digits without trailing zeros. */
  fraction: string;
}

const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

function parseTime(s: string): TimeOfDay | undefined {
  const m = TIME.exec(s);
  if (!m) return undefined;
  const h = Number(m[1]);
  const min = Number(m[2]);
  const sec = m[3] === undefined ? 0 : Number(m[3]);
  if (h > 24 || min > 59 || sec > 60) return undefined;
  return { seconds: h * 3600 + min * 60 + sec, fraction: (m[4] ?? '').replace(/0+$/, '') };
}

interface DateTime {
  /** Days since 1970-01-01 of the calendar date as written. */
  day: number;
  time: TimeOfDay;
  /** Minutes east of UTC; undefined when the text names no offset. */
  offsetMinutes: number | undefined;
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(?:\s?(Z|[+-]\d{2}(?::?\d{2})?))?)?$/i;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const HTTP_DATE = /^(?:mon|tue|wed|thu|fri|sat|sun), (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}:\d{2}:\d{2}) GMT$/i;

/** Days from 1970-01-01 (proleptic Gregorian), H. Hinnant's days_from_civil. */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= (days[m - 1] as number);
}

function parseOffset(zone: string | undefined): number | undefined {
  if (zone === undefined) return undefined;
  if (zone.toUpperCase() === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? '0');
  return m[1] === '-' ? -minutes : minutes;
}

function parseDateTime(s: string): DateTime | undefined {
  let m = ISO_DATE_TIME.exec(s);
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (!validDate(y, mo, d)) return undefined;
    const time = m[4] === undefined ? { seconds: 0, fraction: '' } : parseTime(m[4]);
    if (!time) return undefined;
    return { day: daysFromCivil(y, mo, d), time, offsetMinutes: parseOffset(m[5]) };
  }
  m = HTTP_DATE.exec(s);
  if (m) {
    const month = MONTHS.indexOf((m[2] as string).toLowerCase()) + 1;
    const [y, d] = [Number(m[3]), Number(m[1])];
    const time = parseTime(m[4] as string);
    if (month === 0 || !validDate(y, month, d) || !time) return undefined;
    return { day: daysFromCivil(y, month, d), time, offsetMinutes: 0 };
  }
  return undefined;
}

function sameInstantOrWallClock(a: DateTime, b: DateTime): boolean {
  if (a.time.fraction !== b.time.fraction) return false;
  const wall = (x: DateTime): number => x.day * 86400 + x.time.seconds;
  if (a.offsetMinutes !== undefined && b.offsetMinutes !== undefined) {
    return wall(a) - a.offsetMinutes * 60 === wall(b) - b.offsetMinutes * 60;
  }
  // One side names no zone: the same only when the other is UTC and the wall clocks agree; a naive
  // 10:00 against 10:00-05:00 may well be a time zone bug, so it stays a value difference.
  const offset = a.offsetMinutes ?? b.offsetMinutes ?? 0;
  return offset === 0 && wall(a) === wall(b);
}

/**
 * Whether two different strings spell the same decimal, time of day or date/time. Callers check
 * equality first; this answers only for strings that differ.
 */
export function sameValueSpelledDifferently(a: string, b: string): boolean {
  if (sameDecimalString(a, b)) return true;
  const ta = parseTime(a);
  const tb = parseTime(b);
  if (ta && tb) return ta.seconds === tb.seconds && ta.fraction === tb.fraction;
  const da = parseDateTime(a);
  const db = parseDateTime(b);
  if (da && db) return sameInstantOrWallClock(da, db);
  return false;
}
