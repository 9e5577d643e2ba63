// Turns one v1 value into its legacy spelling: every value a string, money with two decimals, HH:MM times.
// Pure and total: it never throws, whatever v1 sends.
import type { z } from 'zod';
import type { nullPolicy, valueFormat } from './record-schema.js';

export type ValueFormat = z.infer<typeof valueFormat>;
export type NullPolicy = z.infer<typeof nullPolicy>;

/** Two decimals, rounded half away from zero on the decimal value v1 meant (45.005 -> "45.01"). */
export function toMoney(value: number | string): string | undefined {
  const n = typeof value === 'number' ? value : Number(value.trim());
  if (typeof value === 'string' && value.trim() === '') return undefined;
  if (!Number.isFinite(n)) return undefined;
  // toPrecision drops binary noise (1.005 * 100 is 100.49999999999999) before rounding.
  const clean = Number(n.toPrecision(15));
  const cents = Math.round(Number((Math.abs(clean) * 100).toPrecision(12)));
  const sign = clean < 0 && cents !== 0 ? '-' : '';
  return `${sign}${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** `HH:MM:SS` (or `HH:MM:SS.fff`) -> `HH:MM`; anything else is returned unchanged. */
export function toHourMinute(value: string): string {
  const m = /^(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?$/.exec(value);
  return m ? m[1]! : value;
}

/**
 * A v1 value as plain text, the way derive templates, lookups and sort keys read it: as String() spells a
 * scalar, an array's items joined by commas (a list field read as "a,b"), null or missing as ''. An object
 * is its JSON: String() would throw on one JSON.parse made with a "toString" member of its own.
 */
export function plainText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(plainText).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function toText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      // JSON numbers print as JavaScript does: 5 -> "5", 12.5 -> "12.5".
      return String(value);
    case 'boolean':
      return value ? '1' : '0';
    default:
      // v1 promises scalars; an object or array is kept visible rather than dropped.
      return JSON.stringify(value) ?? '';
  }
}

export function toLegacyValue(value: unknown, format: ValueFormat, nulls: NullPolicy): string | null {
  if (value === null || value === undefined) return nulls === 'empty' ? '' : null;
  if (format === 'money' && (typeof value === 'number' || typeof value === 'string')) {
    return toMoney(value) ?? toText(value);
  }
  const text = toText(value);
  return format === 'hhmm' ? toHourMinute(text) : text;
}
