// The list read translated from bytes against the engine's list read of the same bytes decoded (JSON.parse
// in the port, asV1List, the compiled records, listReplyText): for every page, the translation declines or
// writes exactly the UTF-8 of the engine's text, and it declines every page the engine refuses. Over every
// shipped list mapping and random views, on random pages (every spelling JSON allows, as UTF-8), the same
// broken, and the same with bytes that are not UTF-8; and it does not decline the ordinary pages.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { client, listText, practitioner } from '../../../../bench/fake-records.js';
import { loadMappingDirectorySync } from '../../../../src/gateway/loaders/mapping-files.js';
import type { FieldSpec } from '../../../../src/mapping/record-schema.js';
import { compileMapping, runMappingText, type CompiledMapping } from '../../../../src/mapping/run.js';
import type { ListMapping } from '../../../../src/mapping/schema.js';
import { compileListByteTranslation, type ListByteTranslation } from '../../../../src/mapping/byte-translation/list-translation.js';
import { handOff } from '../../../../src/shared/hand-off.js';
import { fieldSpec, sourceNames } from '../v1-arbitraries.js';
import { broken, spelledPage, type SpelledPage } from './page-arbitraries.js';

const MAPPINGS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'mappings');
const shipped = [...loadMappingDirectorySync(MAPPINGS).reads.values()];
const lists = shipped.filter((m): m is ListMapping => m.kind === 'list');

type EngineAnswer = { text: string } | { refused: true };

/** The engine's list read of a page's text, as the gateway runs it: the port parses, the engine refuses or writes. */
async function engineRead(compiled: CompiledMapping, text: string, accountTimezone: string | undefined): Promise<EngineAnswer> {
  try {
    const reply = await runMappingText(
      compiled,
      { segments: ['0', '10'], query: [] },
      { v1Get: async () => handOff(JSON.parse(text)), accountTimezone, staticRecords: () => undefined },
    );
    return { text: reply.take().toString() };
  } catch {
    return { refused: true };
  }
}

/** One mapping's two reads, the translation compiled once and reused from page to page as the gateway would. */
function both(mapping: ListMapping): { compiled: CompiledMapping; translate: ListByteTranslation } {
  const translate = compileListByteTranslation(mapping);
  if (!translate) throw new Error(`${mapping.method}: not translated`);
  return { compiled: compileMapping(mapping), translate };
}

/**
 * Whether the translation wrote the page (true) or declined it (false); fails if it differs from the engine
 * reading the page decoded. A string page is sent as its UTF-8 (a lone surrogate as U+FFFD).
 */
async function expectSameOrDeclined(reads: ReturnType<typeof both>, page: string | Buffer, accountTimezone: string | undefined): Promise<boolean> {
  const bytes = typeof page === 'string' ? Buffer.from(page) : page;
  const text = bytes.toString('utf8');
  const engine = await engineRead(reads.compiled, text, accountTimezone);
  const translated = reads.translate(bytes, accountTimezone);
  if (translated === undefined) return false;
  expect(engine, JSON.stringify(text)).toEqual({ text: translated.bytes.toString('utf8') });
  if (!('text' in engine)) return true;
  expect(translated.bytes.equals(Buffer.from(engine.text)), JSON.stringify(text)).toBe(true);
  expect(String(translated.total)).toBe((JSON.parse(engine.text) as { total: string }).total);
  return true;
}

const accountTimezone = fc.constantFrom(undefined, 'Europe/Paris', 'a"b\\c\u2028\ud800');

/**
 * Counts of translated and declined pages, so that a property cannot pass by declining everything. Up to
 * about half the random pages are ones the engine refuses or that are declined by rule (data named twice);
 * at least a third of all must be written.
 */
function tally(): { written: number; declined: number; note(written: boolean): void } {
  const counts = {
    written: 0,
    declined: 0,
    note(written: boolean) {
      if (written) counts.written++;
      else counts.declined++;
    },
  };
  return counts;
}

/** Valid pages: the translation may decline one only when the engine refuses it, or it names `data` twice. */
async function checkPage(reads: ReturnType<typeof both>, page: SpelledPage, zone: string | undefined): Promise<boolean> {
  const written = await expectSameOrDeclined(reads, page.text, zone);
  if (!written && page.dataMembers === 1) {
    expect(await engineRead(reads.compiled, Buffer.from(page.text).toString(), zone), JSON.stringify(page.text)).toEqual({ refused: true });
  }
  return written;
}

describe('compileListByteTranslation: the mappings it covers', () => {
  it('covers every shipped list mapping', () => {
    expect(lists.map((m) => m.method).sort()).toEqual(['clients', 'practitioners', 'services', 'sessions', 'staffs']);
    for (const mapping of lists) expect(compileListByteTranslation(mapping), mapping.method).toBeDefined();
  });

  it('declines the other kinds', () => {
    for (const mapping of shipped.filter((m) => m.kind !== 'list')) expect(compileListByteTranslation(mapping), mapping.method).toBeUndefined();
  });

  it('declines a view with a derive template', () => {
    const clients = lists.find((m) => m.method === 'clients')!;
    const fields: FieldSpec[] = [...clients.record.fields, { name: 'full_name', derive: { template: '{first_name} {last_name}' } }];
    expect(compileListByteTranslation({ ...clients, record: { ...clients.record, fields } })).toBeUndefined();
  });
});

describe('compileListByteTranslation: the ordinary pages', () => {
  it.each(lists.map((m) => [m.method, m] as const))('%s: translates the bench pages of 0 to 1000 records, as the engine writes them', async (_method, mapping) => {
    const reads = both(mapping);
    for (const make of [client, practitioner]) {
      for (const records of [0, 1, 10, 100, 1000]) {
        const text = listText(100_000, 0, records, make);
        for (const zone of [undefined, 'Europe/Paris']) expect(await expectSameOrDeclined(reads, text, zone), `${records} records`).toBe(true);
      }
    }
  });
});

describe('compileListByteTranslation: random pages, every shipped list mapping', () => {
  it.each(lists.map((m) => [m.method, m] as const))('%s: the engine text, or declined where the engine refuses', async (_method, mapping) => {
    const reads = both(mapping);
    const names = sourceNames(mapping.record.fields);
    const counts = tally();
    await fc.assert(
      fc.asyncProperty(spelledPage(names), accountTimezone, async (page, zone) => counts.note(await checkPage(reads, page, zone))),
      { numRuns: 400 },
    );
    expect(counts.written).toBeGreaterThan((counts.written + counts.declined) / 3);
  });

  it.each(lists.map((m) => [m.method, m] as const))('%s: broken pages are declined, or (still valid) written as the engine does', async (_method, mapping) => {
    const reads = both(mapping);
    const names = sourceNames(mapping.record.fields);
    const counts = tally();
    await fc.assert(
      fc.asyncProperty(
        spelledPage(names).chain((page) => broken(page.text)),
        accountTimezone,
        async (text, zone) => counts.note(await expectSameOrDeclined(reads, text, zone)),
      ),
      { numRuns: 400 },
    );
    expect(counts.declined).toBeGreaterThan(0);
  });
});

describe('compileListByteTranslation: random views', () => {
  const views = fc.record({
    fields: fc.array(fieldSpec.filter((f) => !f.derive), { minLength: 1, maxLength: 8 }),
    nulls: fc.constantFrom('keep' as const, 'empty' as const),
    timezone: fc.option(fc.record({ from: fc.constantFrom('timezone', 'id', 'constructor', '__proto__', 'toString'), fallback: fc.constant('America/New_York') }), { nil: undefined }),
  });
  const clients = lists.find((m) => m.method === 'clients')!;
  const mappingOf = (view: { fields: FieldSpec[]; nulls: 'keep' | 'empty'; timezone: ListMapping['timezone'] }): ListMapping => {
    const mapping: ListMapping = { ...clients, record: { ...clients.record, fields: view.fields, nulls: view.nulls } };
    if (view.timezone) mapping.timezone = view.timezone;
    return mapping;
  };

  it('any view without derive templates: the engine text, or declined where the engine refuses', async () => {
    const counts = tally();
    const cases = views.chain((view) => {
      const names = [...sourceNames(view.fields), ...(view.timezone ? [view.timezone.from] : [])];
      return fc.tuple(fc.constant(view), spelledPage(names), accountTimezone);
    });
    await fc.assert(
      fc.asyncProperty(cases, async ([view, page, zone]) => counts.note(await checkPage(both(mappingOf(view)), page, zone))),
      { numRuns: 600 },
    );
    expect(counts.written).toBeGreaterThan((counts.written + counts.declined) / 3);
  });

  it('names JSON.stringify escapes, spelled in the page with other bytes of the same length', async () => {
    const fields: FieldSpec[] = ['\ud800', 'x\u001fy', 'a"b', 'id', '\u2028', 'é'].map((name) => ({ name }));
    const reads = both(mappingOf({ fields, nulls: 'keep', timezone: undefined }));
    const counts = tally();
    await fc.assert(
      fc.asyncProperty(spelledPage(sourceNames(fields)), async (page) => counts.note(await checkPage(reads, page, undefined))),
      { numRuns: 300 },
    );
    expect(counts.written).toBeGreaterThan((counts.written + counts.declined) / 3);
  });

  it('declines at compile time exactly the views with a derive template', () => {
    fc.assert(
      fc.property(fc.array(fieldSpec, { minLength: 1, maxLength: 6 }), (fields) => {
        const translate = compileListByteTranslation(mappingOf({ fields, nulls: 'keep', timezone: undefined }));
        expect(translate === undefined).toBe(fields.some((f) => f.derive !== undefined));
      }),
    );
  });
});

describe('compileListByteTranslation: chosen pages', () => {
  const clients = both(lists.find((m) => m.method === 'clients')!);
  const sessions = both(lists.find((m) => m.method === 'sessions')!);
  const page = (data: string, extra = '') => `{"object":"list","total":2,"has_more":false,${extra}"data":${data}}`;

  it.each([
    ['repeated mapped fields: the last counts', page('[{"id":1,"email":"a","id":2,"__proto__":"p","email":null,"city":{"a":[1]},"zipcode":1e2}]')],
    ['escaped names and values', page('[{"\\u0069d":"\\u0031","first_name":"\\ud800x","last_name":"\\"q\\"","city":"\\/","state":-0,"country":1.50}]')],
    ['whitespace everywhere', ` \r{ "total" : 1 ,\t"has_more" : true , "data" : [ { "id" : 5 , "email" : null } , {\r \t} ] } \r`],
    ['non-ASCII, astral and U+FFFD raw', page('[{"first_name":"é中😀\ufffd\u2028","last_name":"\ud83d\ude00"}]')],
    ['total after data, spelled oddly', '{"data":[],"has_more":true,"total":1E+2}'],
    ['booleans, big and odd numbers', page('[{"id":12345678901234567890,"users_id":true,"avail_id":false,"city":1e400,"state":0.1e-5,"country":-1e-7}]')],
  ])('%s: written as the engine does', async (_what, text) => {
    expect(await expectSameOrDeclined(clients, text, undefined)).toBe(true);
  });

  it.each([
    ['the first record', '[{"timezone":"Asia/Tokyo","session_start_time":"09:30:00"},{"timezone":"x"}]', 'Europe/Paris'],
    ['an empty first timezone', '[{"timezone":"","session_end_time":"23:59:59.123"}]', 'Europe/Paris'],
    ['no records, no account timezone', '[]', undefined],
    ['an escaped timezone', '[{"timezone":"A\\u0073ia/\\"x","session_start_time":"9:30"}]', undefined],
  ])('sessions: the timezone from %s', async (_what, data, zone) => {
    expect(await expectSameOrDeclined(sessions, page(data), zone)).toBe(true);
  });

  it.each([
    ['truncated', page('[{"id":1}]').slice(0, -2)],
    ['trailing garbage', `${page('[]')}x`],
    ['a bad escape', page('[{"id":"\\x"}]')],
    ['a leading zero', page('[{"id":01}]')],
    ['a control character in a string', page('[{"id":"a\u0001"}]')],
    ['a raw tab in a string', page('[{"id":"a\tb"}]')],
    ['single quotes', page("[{'id':1}]")],
    ['NaN', page('[{"id":NaN}]')],
    ['a trailing comma', page('[{"id":1},]')],
    ['a total that is not a whole number', '{"total":1.5,"has_more":true,"data":[]}'],
    ['a negative total', '{"total":-1,"has_more":true,"data":[]}'],
    ['has_more not a boolean', '{"total":1,"has_more":null,"data":[]}'],
    ['a record that is not an object', page('[{"id":1},[]]')],
    ['no data', '{"total":1,"has_more":true}'],
    ['not an object', '[]'],
  ])('declines a page the engine refuses: %s', async (_what, text) => {
    expect(await engineRead(clients.compiled, text, undefined)).toEqual({ refused: true });
    expect(clients.translate(Buffer.from(text), undefined)).toBeUndefined();
  });

  it('declines a page naming data twice and values nested too deep, which the engine reads', async () => {
    const twice = '{"total":1,"has_more":true,"data":[{"id":1}],"data":[{"id":2}]}';
    const deep = page(`[{"id":1,"x":${'['.repeat(80)}${']'.repeat(80)}}]`);
    for (const text of [twice, deep]) {
      expect(await engineRead(clients.compiled, text, undefined)).toHaveProperty('text');
      expect(clients.translate(Buffer.from(text), undefined)).toBeUndefined();
    }
  });

  it('writes a pretty-printed page as the engine does', async () => {
    const pretty = JSON.stringify(JSON.parse(page('[{"id":1,"email":"a","first_name":"Zoë"},{"id":2}]')), null, 2);
    expect(await expectSameOrDeclined(clients, pretty, undefined)).toBe(true);
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['a surrogate encoded', [0xed, 0xa0, 0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['a byte never in UTF-8', [0xff]],
  ])('declines a page with %s in a value, which the engine reads with U+FFFD', async (_what, bad) => {
    const [before, after] = page('[{"id":1,"first_name":"A|B"}]').split('|');
    const bytes = Buffer.concat([Buffer.from(before!), Buffer.from(bad), Buffer.from(after!)]);
    expect(clients.translate(bytes, undefined)).toBeUndefined();
    expect(await engineRead(clients.compiled, bytes.toString(), undefined)).toEqual({
      text: expect.stringContaining('"first_name":"A\ufffd') as unknown as string,
    });
  });
});

describe('compileListByteTranslation: pages that are not UTF-8', () => {
  /** Bytes no UTF-8 decoder accepts as they are: stray continuations, overlong forms, surrogates, cut sequences. */
  const notUtf8 = fc.constantFrom([0x80], [0xbf], [0xc0, 0x80], [0xc1, 0xbf], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xfe], [0xff]);
  const clients = both(lists.find((m) => m.method === 'clients')!);

  it('declines every page holding bytes that are not UTF-8, anywhere', async () => {
    const cases = spelledPage(sourceNames(clients.compiled.mapping.record.fields)).chain((spelled) => {
      const bytes = Buffer.from(spelled.text);
      return fc.tuple(fc.constant(bytes), fc.integer({ min: 0, max: bytes.length }), notUtf8);
    });
    await fc.assert(
      fc.asyncProperty(cases, async ([bytes, at, bad]) => {
        const page = Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]);
        expect(clients.translate(page, undefined)).toBeUndefined();
        return true;
      }),
      { numRuns: 300 },
    );
  });
});
