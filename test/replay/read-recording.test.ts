// Reading recordings: HAR (browser export, base64 bodies) and JSONL, streamed; every input error names
// the file, the place and the reason.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { NumberLiteral } from '../../src/shared/json-exact.js';
import { detectFormat, readRecording, RecordingInputError } from '../../src/replay/recordings/read-recording.js';
import type { RecordedExchange } from '../../src/replay/recordings/recording.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const HAR = path.join(here, '../fixtures/replay/legacy-traffic.har');
const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
const readAll = async (p: string): Promise<RecordedExchange[]> => {
  const out: RecordedExchange[] = [];
  for await (const e of readRecording(p)) out.push(e);
  return out;
};
const failure = async (p: string): Promise<string> => {
  try {
    await readAll(p);
  } catch (err) {
    expect(err).toBeInstanceOf(RecordingInputError);
    return (err as Error).message;
  }
  throw new Error('expected a RecordingInputError');
};

describe('HAR', () => {
  it('reads a browser export: entries, headers, base64 bodies, form posts', async () => {
    const entries = await readAll(HAR);
    expect(entries).toHaveLength(12);
    const [first] = entries;
    expect(first?.request).toMatchObject({ method: 'GET', url: 'https://old.example.com/api/services/0/2' });
    expect(first?.response.status).toBe(200);
    expect(first?.response.body).toMatchObject({ kind: 'text', text: expect.stringMatching(/^\{"status":"success"/) });
    const base64 = entries[2];
    expect(base64?.response.body).toMatchObject({ kind: 'text', text: expect.stringMatching(/^\{"status":"success","total":"300"/) });
    const payment = entries[9];
    expect(payment?.request.body).toMatchObject({ kind: 'text' });
    expect(payment?.location).toBe('log.entries[9]');
  });

  it('reads a one-line HAR and sniffs the format without an extension', async () => {
    const p = file('one-line.json', JSON.stringify({ log: { version: '1.2', entries: [{ request: { method: 'get', url: 'http://h/api/x' }, response: { status: 204, content: { size: 0 } } }] } }));
    expect(await detectFormat(p)).toBe('har');
    const [e] = await readAll(p);
    expect(e?.request.method).toBe('GET');
    expect(e?.response.body).toEqual({ kind: 'text', text: '' });
  });

  it('names the entry and the field of a bad entry', async () => {
    const p = file('bad-entry.har', JSON.stringify({ log: { version: '1.2', entries: [{ request: { method: 'GET', url: 'http://h/' }, response: { status: 200 } }, { request: { method: 'GET', url: 'http://h/' }, response: { status: 'ok' } }] } }, null, 2));
    expect(await failure(p)).toMatch(/bad-entry\.har: log\.entries\[1\]\.response\.status: .*number/i);
  });

  it('names line and column of a syntax error', async () => {
    const p = file('syntax.har', '{\n  "log": {\n    "version": "1.2",\n    "entries": [\n      {"request": tru}\n    ]\n  }\n}\n');
    expect(await failure(p)).toMatch(/syntax\.har: line 5, column 2\d: not valid JSON \(after 0 entries\)/);
  });

  it('reports a truncated file, a file that is not a HAR, and an empty HAR', async () => {
    expect(await failure(file('cut.har', '{"log":{"version":"1.2","entries":[{"request":{"method":"GET"'))).toMatch(/cut\.har: not valid JSON: the file ends early/);
    expect(await failure(file('other.har', '{"hello":"world"}'))).toMatch(/other\.har: not a HAR file: no log\.entries/);
    expect(await failure(file('empty.har', '{"log":{"version":"1.2","entries":[]}}'))).toMatch(/empty\.har: log\.entries: the HAR file holds no entries/);
    expect(await failure(file('bad-b64.har', JSON.stringify({ log: { entries: [{ request: { method: 'GET', url: 'http://h/' }, response: { status: 200, content: { text: '***', encoding: 'base64' } } }] } })))).toMatch(
      /log\.entries\[0\]\.response\.content\.text: encoding is base64 but the text is not base64/,
    );
  });
});

describe('JSONL', () => {
  it('reads lines with embedded or string bodies, keeping number spellings', async () => {
    const p = file(
      'calls.jsonl',
      [
        '{"request":{"method":"GET","url":"/api/staff/1","headers":{"accept":"application/json"}},"response":{"status":200,"body":{"status":"success","code":12.0}}}',
        '',
        '{"request":{"method":"POST","url":"http://gw/api/payment","headers":[{"name":"content-type","value":"application/json"}],"body":{"send_email":0}},"response":{"status":200,"body":"{\\"status\\":\\"failure\\",\\"code\\":1}"}}',
      ].join('\n'),
    );
    const [a, b] = await readAll(p);
    expect(a?.location).toBe('line 1');
    expect(a?.request.headers).toEqual([['accept', 'application/json']]);
    expect(a?.response.body).toEqual({ kind: 'json', value: { status: 'success', code: new NumberLiteral('12.0') } });
    expect(b?.location).toBe('line 3');
    expect(b?.request.body).toEqual({ kind: 'json', value: { send_email: 0 } });
    expect(b?.response.body).toEqual({ kind: 'text', text: '{"status":"failure","code":1}' });
  });

  it('names the line, the column and the field', async () => {
    expect(await failure(file('a.jsonl', '{"request":{"method":"GET","url":"/x"},"response":{"status":200}}\n{"request": nope}\n'))).toMatch(/a\.jsonl: line 2, column 13: not valid JSON/);
    expect(await failure(file('b.jsonl', '{"request":{"method":"GET","url":"x y"},"response":{"status":200}}\n'))).toMatch(/b\.jsonl: line 1: request\.url: not an absolute URL/);
    expect(await failure(file('c.jsonl', '{"request":{"method":"GET","url":"/x"}}\n'))).toMatch(/c\.jsonl: line 1: response: /);
    expect(await failure(file('d.jsonl', '\n\n'))).toMatch(/the file is empty|holds no entries/);
    expect(await failure(path.join(dir, 'missing.jsonl'))).toMatch(/missing\.jsonl: cannot read the file \(ENOENT\)/);
    expect(await failure(file('e.txt', 'hello'))).toMatch(/e\.txt: line 1: neither a HAR file nor JSONL/);
  });
});
