// The engine's text port: a plain list the text translation covers is read through `v1GetText` (v1Get never
// asked) and answers the bytes the parsed read gives; a page the translation declines answers as the engine
// does from the same text, a text that is not JSON or not a list is the engine's 502; a kind the
// translation does not cover reads through `v1Get` though the text port is there.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { client, listText } from '../../../bench/fake-records.js';
import { loadMappingDirectorySync } from '../../../src/gateway/loaders/mapping-files.js';
import { compileMapping, runMappingText, type EngineDeps } from '../../../src/mapping/run.js';
import type { V1Call } from '../../../src/mapping/v1-reply.js';
import { handOff } from '../../../src/shared/hand-off.js';

const MAPPINGS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'mappings');
const shipped = loadMappingDirectorySync(MAPPINGS).reads;
const compiled = (method: string) => compileMapping(shipped.get(method)!);

interface Ports extends EngineDeps {
  asked: Array<['json' | 'text', V1Call]>;
}

/** Both ports answering `text` (parsed for v1Get), each call noted with the port it came through. */
function ports(text: string): Ports {
  const asked: Ports['asked'] = [];
  return {
    asked,
    v1Get: async (call) => {
      asked.push(['json', call]);
      return handOff(JSON.parse(text));
    },
    v1GetText: async (call) => {
      asked.push(['text', call]);
      return handOff(text);
    },
    accountTimezone: undefined,
    staticRecords: () => undefined,
  };
}

const read = async (method: string, segments: string[], deps: EngineDeps) => (await runMappingText(compiled(method), { segments, query: [] }, deps)).take();
const parsedOnly = ({ v1GetText: _unused, ...rest }: Ports): EngineDeps => rest;

describe('a list read through the text port', () => {
  it('is translated from the text, v1Get never asked, into the bytes the parsed read gives', async () => {
    const page = listText(250, 0, 10, client);
    const deps = ports(page);
    const text = await read('clients', ['0', '10'], deps);
    expect(text).toBe(await read('clients', ['0', '10'], parsedOnly(ports(page))));
    expect(text.startsWith('{"status":"success","total":"250","response":[{"id":"1","users_id":null,')).toBe(true);
    expect(deps.asked).toEqual([['text', { path: '/clients', query: { offset: '0', limit: '10' } }]]);
  });

  it('answers a page the translation declines (data named twice) as the engine does from the same text', async () => {
    const page = '{"total":1,"has_more":false,"data":[],"data":[{"id":7,"first_name":"Zoë"}]}';
    const text = await read('clients', ['0', '5'], ports(page));
    expect(text).toBe(await read('clients', ['0', '5'], parsedOnly(ports(page))));
    expect(JSON.parse(text)).toMatchObject({ status: 'success', total: '1', response: [{ id: '7', first_name: 'Zoë' }] });
  });

  it('refuses a text that is not JSON, and a page that is not a list, with the engine 502', async () => {
    await expect(read('clients', ['0', '5'], ports('{"total":1,'))).rejects.toMatchObject({
      code: 'LGW_UPSTREAM_BAD_REPLY',
      status: 502,
      message: 'the upstream sent a reply that is not valid JSON',
    });
    const notAList = '{"total":"1","has_more":false,"data":[]}';
    const error = await read('clients', ['0', '5'], parsedOnly(ports(notAList))).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'LGW_UPSTREAM_BAD_REPLY', status: 502 });
    await expect(read('clients', ['0', '5'], ports(notAList))).rejects.toEqual(error);
  });

  it('leaves the kinds it does not cover to v1Get, the text port given or not', async () => {
    const deps = ports('{"object":"practitioner","id":3,"first_name":"Ann"}');
    await read('practitioner', ['3'], deps);
    expect(deps.asked.map(([port]) => port)).toEqual(['json']);
  });
});
