// The table of a method's legacy fields: each field in legacy order, the v1 field it comes from and its
// conversion, as field-rows.ts classifies them; with the legend that says once what each conversion does.
// Pure.
import { code, type Block, type Inline, type Text } from './document.js';
import type { FieldRow } from './field-rows.js';

/** What the gateway did to a value after reading it: the same words in every row, explained by the legend. */
function formatWords(row: FieldRow): Inline[] {
  const spelled: Inline[] =
    row.format === 'money' ? ['money with 2 decimals'] : row.format === 'hhmm' ? ['time HH:MM'] : ['stringified'];
  if (row.nulls === 'empty') spelled.push(', null as ', code('""'));
  return spelled;
}

/** The conversion cell of one row. */
export function conversionText(row: FieldRow): Text {
  const pieces: Inline[] = [];
  switch (row.source) {
    case 'copied':
      pieces.push('copied, ', ...formatWords(row));
      break;
    case 'renamed':
      pieces.push('renamed from ', code(row.v1Fields[0] ?? ''), ', ', ...formatWords(row));
      break;
    case 'derived':
      pieces.push('derived by ', code(row.detail), ' (each ', code('{field}'), ' replaced by its v1 value), ', ...formatWords(row));
      break;
    case 'defaulted':
      pieces.push('defaulted to ', code(JSON.stringify(row.detail)), ': not available in v1');
      break;
    case 'missing':
      pieces.push('not available in v1: always ', code('null'));
      break;
  }
  if (row.guess !== undefined) pieces.push(` (a guess: ${row.guess})`);
  return pieces;
}

/** The v1 cell: the fields read, or a dash where v1 gives nothing. */
function v1Cell(row: FieldRow): Text {
  if (row.source === 'defaulted' || row.source === 'missing') return ['—'];
  return row.v1Fields.flatMap((field, i): Inline[] => (i === 0 ? [code(field)] : [', ', code(field)]));
}

export function fieldTable(rows: readonly FieldRow[]): Block {
  return {
    kind: 'table',
    header: ['#', 'Legacy field', 'v1 field', 'Conversion'],
    rows: rows.map((row, i) => ({ cells: [[String(i + 1)], [code(row.legacy)], v1Cell(row), conversionText(row)] })),
  };
}

/** The legend of the conversions the rows use. */
export function fieldLegend(rows: readonly FieldRow[]): Block {
  const used = new Set(rows.map((r) => (r.source === 'defaulted' || r.source === 'missing' ? r.source : r.format)));
  const items: Text[] = [];
  if (used.has('text'))
    items.push([code('stringified'), ': a v1 string as it is, a number as its digits (', code('5'), ' → ', code('"5"'), '), a boolean as ', code('"1"'), ' or ', code('"0"'), '.']);
  if (used.has('money')) items.push([code('money with 2 decimals'), ': a number as a string with two decimals (', code('45.5'), ' → ', code('"45.50"'), ').']);
  if (used.has('hhmm')) items.push([code('time HH:MM'), ': v1 times are HH:MM:SS; the seconds are cut (', code('"09:30:00"'), ' → ', code('"09:30"'), ').']);
  if (used.has('defaulted')) items.push([code('defaulted'), ': v1 has no such field; the legacy reply always carried the legacy API\'s documented default.']);
  if (used.has('missing')) items.push([code('not available in v1'), ': v1 has no such field; the legacy reply carried ', code('null'), '.']);
  items.push(['A v1 ', code('null'), ' stays ', code('null'), ' unless the row says otherwise; v1 sends numbers as JSON numbers, where the legacy reply had strings.']);
  return { kind: 'list', items };
}
