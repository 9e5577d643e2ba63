// The legacy field coverage matrix, generated from the mappings (never written by hand):
// for every legacy method and field, whether the value is copied, renamed, derived, defaulted or missing.
// Pure: formatting for people or machines, no printing.
import type { FieldSpec, Mapping } from './schema.js';
import type { MappingSet } from './mapping-set.js';

export type FieldSource = 'copied' | 'renamed' | 'derived' | 'defaulted' | 'missing';

export interface CoverageRow {
  method: string;
  field: string;
  source: FieldSource;
  /** The v1 field read, the template, or the default. */
  detail: string;
  format: string;
  guess?: string;
}

export function classifyField(f: FieldSpec): { source: FieldSource; detail: string } {
  if (f.derive) return { source: 'derived', detail: f.derive.template };
  if (f.default !== undefined) return { source: 'defaulted', detail: JSON.stringify(f.default) };
  if (f.missing) return { source: 'missing', detail: 'null' };
  if (f.from && f.from !== f.name) return { source: 'renamed', detail: f.from };
  return { source: 'copied', detail: f.name };
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
      const row: CoverageRow = { method: m.method, field: f.name, source, detail, format: f.format ?? 'text' };
      if (f.guess) row.guess = f.guess;
      rows.push(row);
    }
  }
  return rows;
}

const SOURCES: FieldSource[] = ['copied', 'renamed', 'derived', 'defaulted', 'missing'];

/** A plain-text table: per method a count line, then one line per field. */
export function coverageText(set: MappingSet): string {
  const rows = coverageRows(set);
  const lines: string[] = [];
  const width = Math.max(...rows.map((r) => r.field.length), 5);
  for (const m of [...set.values()].sort((a, b) => a.method.localeCompare(b.method))) {
    const mine = rows.filter((r) => r.method === m.method);
    const counts = SOURCES.map((s) => `${s} ${mine.filter((r) => r.source === s).length}`).join(', ');
    lines.push(`/api/${m.method}  <-  ${sourceOf(m)}   (${mine.length} fields: ${counts})`);
    for (const r of mine) {
      const guess = r.guess ? `   [guess: ${r.guess}]` : '';
      const fmt = r.format === 'text' ? '' : ` as ${r.format}`;
      lines.push(`  ${r.field.padEnd(width)}  ${r.source.padEnd(9)}  ${r.detail}${fmt}${guess}`);
    }
    lines.push('');
  }
  const total = SOURCES.map((s) => `${s} ${rows.filter((r) => r.source === s).length}`).join(', ');
  lines.push(`${set.size} methods, ${rows.length} legacy fields: ${total}`);
  return lines.join('\n');
}
