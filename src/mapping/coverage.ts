// The legacy field coverage matrix, generated from the mappings (never written by hand):
// for every legacy method and field, whether the value is copied, renamed, derived, defaulted or missing,
// and whether it is a guess about the real service: by its own line, or because its whole record is a guess.
// Pure: formatting for people or machines, no printing.
import type { FieldSpec, Mapping } from './schema.js';
import type { MappingSet } from './mapping-set.js';

export type FieldSource = 'copied' | 'renamed' | 'derived' | 'defaulted' | 'missing';

/** Why a field is a guess: its own line's reason, its whole record's, or both. */
export interface GuessReason {
  field?: string;
  record?: string;
}

export interface CoverageRow {
  method: string;
  field: string;
  source: FieldSource;
  /** The v1 field read, the template, or the default. */
  detail: string;
  format: string;
  /** Whether the value is a guess about the real service (the field's own line, or its whole record). */
  guess: boolean;
  /** Only when `guess`: why. */
  reason?: GuessReason;
}

export function classifyField(f: FieldSpec): { source: FieldSource; detail: string } {
  if (f.derive) return { source: 'derived', detail: f.derive.template };
  if (f.default !== undefined) return { source: 'defaulted', detail: JSON.stringify(f.default) };
  if (f.missing) return { source: 'missing', detail: 'null' };
  if (f.from && f.from !== f.name) return { source: 'renamed', detail: f.from };
  return { source: 'copied', detail: f.name };
}

/** Why a field is a guess, or undefined when it is none: a record-level guess makes every field of it one. */
export function guessOf(f: FieldSpec): GuessReason | undefined {
  if (f.guess === undefined && f.recordGuess === undefined) return undefined;
  return { ...(f.guess !== undefined && { field: f.guess }), ...(f.recordGuess !== undefined && { record: f.recordGuess }) };
}

/** The reason a method's whole record is a guess, when it is one (every field of the record carries it). */
export function recordGuessOf(m: Mapping): string | undefined {
  return m.record.fields.find((f) => f.recordGuess !== undefined)?.recordGuess;
}

/** The v1 source of a method, as people read it. */
export function sourceOf(m: Mapping): string {
  if (m.kind === 'static') return `file named by ${m.source.setting}`;
  const base = `/api/v1/${m.source.resource}`;
  return m.kind === 'detail' ? `${base}/{id}` : base;
}

export function coverageRows(set: MappingSet): CoverageRow[] {
  const rows: CoverageRow[] = [];
  for (const m of [...set.values()].sort((a, b) => a.method.localeCompare(b.method))) {
    for (const f of m.record.fields) {
      const { source, detail } = classifyField(f);
      const reason = guessOf(f);
      const row: CoverageRow = { method: m.method, field: f.name, source, detail, format: f.format ?? 'text', guess: reason !== undefined };
      if (reason) row.reason = reason;
      rows.push(row);
    }
  }
  return rows;
}

const SOURCES: FieldSource[] = ['copied', 'renamed', 'derived', 'defaulted', 'missing'];

/** The marker after a field line: the field's own reason; a field guessed only with its record says so briefly. */
function guessMarker(r: CoverageRow): string {
  if (!r.reason) return '';
  return r.reason.field !== undefined ? `   [guess: ${r.reason.field}]` : '   [guess: whole record]';
}

/**
 * A plain-text table: per method a count line (with how many fields are guesses), the reason its whole record is
 * a guess if it is one, then one line per field, a guess marked `[guess: ...]`.
 */
export function coverageText(set: MappingSet): string {
  const rows = coverageRows(set);
  const lines: string[] = [];
  const width = Math.max(...rows.map((r) => r.field.length), 5);
  for (const m of [...set.values()].sort((a, b) => a.method.localeCompare(b.method))) {
    const mine = rows.filter((r) => r.method === m.method);
    const counts = SOURCES.map((s) => `${s} ${mine.filter((r) => r.source === s).length}`).join(', ');
    const guesses = mine.filter((r) => r.guess).length;
    lines.push(`/api/${m.method}  <-  ${sourceOf(m)}   (${mine.length} fields: ${counts}; guesses ${guesses})`);
    const recordGuess = recordGuessOf(m);
    if (recordGuess !== undefined) lines.push(`  the whole ${m.record.name} record is a guess: ${recordGuess}`);
    for (const r of mine) {
      const fmt = r.format === 'text' ? '' : ` as ${r.format}`;
      lines.push(`  ${r.field.padEnd(width)}  ${r.source.padEnd(9)}  ${r.detail}${fmt}${guessMarker(r)}`);
    }
    lines.push('');
  }
  const total = SOURCES.map((s) => `${s} ${rows.filter((r) => r.source === s).length}`).join(', ');
  lines.push(`${set.size} methods, ${rows.length} legacy fields: ${total}; guesses ${rows.filter((r) => r.guess).length}`);
  return lines.join('\n');
}
