// The engine's bytes port: a plain list the byte translation covers is read through `v1GetBytes` (v1Get never
// asked) and answers the bytes the parsed read gives; a page the translation declines (bytes that are not
// UTF-8 among them) answers as the engine does from the same bytes decoded, a page that is not JSON or not a
// list is the engine's 502; a kind the translation does not cover reads through `v1Get` though the bytes
// port is there.
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
  asked: Array<['json' | 'bytes', V1Call]>;
}

/** Both ports answering `page` (decoded and parsed for v1Get), each call noted with the port it came through. */
function ports(page: string | Buffer): Ports {
  const bytes = typeof page === 'string' ? Buffer.from(page) : page;
  const asked: Ports['asked'] = [];
  return {
    asked,
    v1Get: async (call) => {
      asked.push(['json', call]);
      return handOff(JSON.parse(bytes.toString('utf8')));
    },
    v1GetBytes: async (call) => {
      asked.push(['bytes', call]);
      return handOff(bytes);
    },
    accountTimezone: undefined,
    staticRecords: () => undefined,
  };
}

/** The reply's JSON as UTF-8 bytes, whichever form the engine gave it in. */
const read = async (method: string, segments: string[], deps: EngineDeps): Promise<Buffer> => {
  const json = (await runMappingText(compiled(method), { segments, query: [] }, deps)).take();
  return typeof json === 'string' ? Buffer.from(json) : json;
};
const parsedOnly = ({ v1GetBytes: _unused, ...rest }: Ports): EngineDeps => rest;

describe('a list read through the bytes port', () => {
  it('is translated from the bytes, v1Get never asked, into the bytes the parsed read gives', async () => {
    const page = listText(250, 0, 10, client);
    const deps = ports(page);
    const json = await read('clients', ['0', '10'], deps);
    expect(json.toString()).toBe((await read('clients', ['0', '10'], parsedOnly(ports(page)))).toString());
    expect(json.toString().startsWith('{"status":"success","total":"250","response":[{"id":"1","users_id":null,')).toBe(true);
    expect(deps.asked).toEqual([['bytes', { path: '/clients', query: { offset: '0', limit: '10' } }]]);
  });

  it('answers a page the translation declines (data named twice) as the engine does from the same bytes', async () => {
    const page = '{"total":1,"has_more":false,"data":[],"data":[{"id":7,"first_name":"Zoë"}]}';
    const json = await read('clients', ['0', '5'], ports(page));
    expect(json.equals(await read('clients', ['0', '5'], parsedOnly(ports(page))))).toBe(true);
    expect(JSON.parse(json.toString())).toMatchObject({ status: 'success', total: '1', response: [{ id: '7', first_name: 'Zoë' }] });
  });

  it('answers a page that is not UTF-8 as the engine does from its bytes decoded (U+FFFD for each bad sequence)', async () => {
    const page = Buffer.concat([Buffer.from('{"total":1,"has_more":false,"data":[{"id":7,"first_name":"Zo'), Buffer.from([0xeb, 0xff]), Buffer.from('"}]}')]);
    const deps = ports(page);
    const json = await read('clients', ['0', '5'], deps);
    expect(json.equals(await read('clients', ['0', '5'], parsedOnly(ports(page))))).toBe(true);
    expect(JSON.parse(json.toString())).toMatchObject({ response: [{ id: '7', first_name: 'Zo\ufffd\ufffd' }] });
    expect(deps.asked.map(([port]) => port)).toEqual(['bytes']);
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
