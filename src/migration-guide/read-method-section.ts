// One legacy read method's part of the guide: what replaces it in v1 (read-requests.ts, lookup-requests.ts),
// the reply envelopes, every legacy field with its v1 source and conversion (field-rows.ts), and the example
// calls; for an integration, what it called and how, its shapes highlighted. Everything comes from the
// method's mapping. Pure.
import { recordGuessOf } from '../mapping/coverage.js';
import type { Mapping } from '../mapping/schema.js';
import type { MethodUse } from './call-shapes.js';
import { code, joined, type Block, type Inline, type Text } from './document.js';
import { fieldLegend, fieldTable } from './field-table.js';
import { fieldRows } from './field-rows.js';
import { lookupReplacement } from './lookup-requests.js';
import { readReplacement, type Replacement } from './read-requests.js';
import { V1_LIST_ENVELOPE } from './v1-conventions.js';

/** The heading's path: the legacy call as its reference writes it. */
export function legacyTemplate(m: Mapping): string {
  if ('paging' in m) return `/api/${m.method}/{start}/{limit}`;
  if (m.kind === 'detail') return `/api/${m.method}/{id}`;
  if (m.kind === 'lookup') return `/api/${m.method}?${[...m.exclusive, ...m.combinable].map((k) => `${k.param}=`).join('|')}`;
  return `/api/${m.method}`;
}

function replyRules(m: Mapping): Text[] {
  const tz = 'timezone' in m && m.timezone ? '"timezone":"…",' : '';
  const failure: Text = ['A failure was ', code('{"status":"failure","response":"<message>"}'), '; v1 answers ', code('{"error":{"code":"…","message":"…"}}'), ' with the HTTP status (branch on ', code('error.code'), ').'];
  if (m.kind === 'list' || m.kind === 'sorted-list') {
    return [
      ['Legacy: ', code(`{"status":"success","total":"<n>",${tz}"response":[…]}`), '. v1: ', code(`{${V1_LIST_ENVELOPE.map((k) => `"${k}":…`).join(',')}}`), ', ', code('data'), ' in place of ', code('response'), ', ', code('total'), ' a number.'],
      ['Each v1 record begins with ', code('"object"'), ' (the resource), which legacy records did not carry; its other fields are below.'],
      failure,
    ];
  }
  if (m.kind === 'static') return [['Legacy: ', code('{"status":"success","response":[…]}'), ', every record of the file.'], failure];
  return [
    ['Legacy: ', code(`{"status":"success",${tz}"response":{…}}`), '. v1: the record itself, beginning with ', code('"object"'), ' (the resource).'],
    failure,
  ];
}

function usageCallout(m: Mapping, use: MethodUse): Block {
  const text: Inline[] = [`This integration called it ${use.calls} time${use.calls === 1 ? '' : 's'}`];
  if (use.shapes.length > 0) {
    text.push(', in these shapes: ', ...joined(use.shapes.map((s) => code(`${s.shape} (${s.calls})`))));
    if (m.kind === 'lookup') text.push('. The rows it uses are highlighted');
  }
  text.push('.');
  return { kind: 'callout', text };
}

function exampleBlock(replacement: Replacement): Block {
  const lines = replacement.examples.flatMap((pair, i) => [...(i === 0 ? [] : ['']), '# legacy', ...pair.legacy, '# v1', ...pair.v1]);
  return { kind: 'code', language: 'sh', lines };
}

export function readMethodSection(m: Mapping, use: MethodUse | undefined): Block[] {
  const replacement = m.kind === 'lookup' ? lookupReplacement(m, use?.shapes) : readReplacement(m);
  const rows = fieldRows(m.record);
  const recordGuess = recordGuessOf(m);
  const blocks: Block[] = [
    { kind: 'heading', level: 2, text: [code(`GET ${legacyTemplate(m)}`)], anchor: m.method },
    { kind: 'paragraph', text: [`${m.description}.`] },
  ];
  if (use) blocks.push(usageCallout(m, use));
  blocks.push(
    { kind: 'heading', level: 3, text: ['The v1 request'] },
    { kind: 'table', header: replacement.header, rows: replacement.calls },
    { kind: 'list', items: replacement.rules },
    { kind: 'heading', level: 3, text: ['The reply'] },
    { kind: 'list', items: replyRules(m) },
    { kind: 'heading', level: 3, text: [`Fields, in legacy order: the ${m.record.name} record, ${m.record.view} view (${rows.length} fields)`] },
  );
  if (recordGuess !== undefined) blocks.push({ kind: 'paragraph', text: [`Where v1 has not documented this record, the gateway took a guess: ${recordGuess}.`] });
  blocks.push(fieldLegend(rows), fieldTable(rows), { kind: 'heading', level: 3, text: ['Example'] }, exampleBlock(replacement));
  return blocks;
}
