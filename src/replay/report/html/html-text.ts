// Text helpers every part of the HTML report uses: escaping (every recorded or replayed value is
// untrusted text), counts in words, JSON values shortened for a cell.
// Pure: must never do I/O.
import { stringifyExact, type JsonValue } from '../../../shared/json-exact.js';

/** For attribute values and any text: every character that could end one is escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** For element content only (never an attribute): quotes stay as they are, which keeps JSON bodies small. */
export function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** `1 difference`, `3 differences`. */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/** A share as a whole percentage, never 0% for a share that is not zero, nor 100% for one that is not whole. */
export function percent(part: number, whole: number): string {
  if (whole <= 0) return '0%';
  const p = (part / whole) * 100;
  if (part > 0 && p < 1) return '<1%';
  if (part < whole && p > 99) return '>99%';
  return `${Math.round(p)}%`;
}

/** Longest value text shown in one cell of a differences table; the JSON report has the whole value. */
export const MAX_VALUE_CHARS = 2000;

/** A value as indented JSON text, cut at MAX_VALUE_CHARS with a note. */
export function valueText(value: JsonValue): string {
  const text = stringifyExact(value, 2);
  if (text.length <= MAX_VALUE_CHARS) return text;
  return `${text.slice(0, MAX_VALUE_CHARS)}\n… (${text.length - MAX_VALUE_CHARS} more characters in the JSON report)`;
}

/** `1.2 MB`, `340 KB`, `512 B`: sizes of bodies left out. */
export function sizeText(chars: number): string {
  if (chars >= 1024 * 1024) return `${(chars / (1024 * 1024)).toFixed(1)} MB`;
  if (chars >= 1024) return `${Math.round(chars / 1024)} KB`;
  return `${chars} B`;
}
