// Reloading the mappings without a restart, black box: `serve` in a process of its own, MAPPINGS_DIR a
// temporary copy of mappings/, in front of a recording fake v1. A field renamed in a record file and a
// SIGHUP: once the reload's log line is written, the next read carries the new spelling (its reply cached
// before the reload is not served again), while a read routed before the signal, held at v1 meanwhile,
// still answers with the old. An invalid file and a SIGHUP: one log line naming the file and the reason,
// reads unchanged, `result="invalid"` counted. Concurrent reads across a valid and then an invalid reload
// all answer 200, each with the exact body of the old or of the new set.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchReply } from '../helpers/fetch-reply.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

const CLIENT_RECORD = path.join('records', 'client.yaml');
let dir: string;
let v1: RecordingUpstream;
let gateway: GatewayProcess;
/** v1's client replies held until released (a read in flight across a reload). */
let hold: { arrived: () => void; release: Promise<void> } | undefined;

const client = (id: number) => ({ object: 'client', id, first_name: 'Ann', last_name: 'Lee', email: `ann${id}@example.test`, status: 'active' });

/** Renames the client record's v1 first_name, spelt `from` in the legacy reply, to `to`. */
function renameClientField(from: string, to: string): void {
  const file = path.join(dir, CLIENT_RECORD);
  const text = readFileSync(file, 'utf8');
  const line = from === 'first_name' ? `  - { name: first_name }\n` : `  - { name: ${from}, from: first_name }\n`;
  expect(text).toContain(line);
  writeFileSync(file, text.replace(line, `  - { name: ${to}, from: first_name }\n`));
}

/** The first line written from now on (or already written after `from`) that `match` accepts. */
function nextLine(match: (line: string) => boolean, from = gateway.lines.length): Promise<string> {
  return new Promise((resolve, reject) => {
    const streams = [gateway.child.stdout!, gateway.child.stderr!];
    const done = () => {
      for (const s of streams) s.off('data', check);
      gateway.child.off('exit', exited);
    };
    const exited = () => {
      done();
      reject(new Error(`the gateway exited:\n${gateway.lines.join('\n')}`));
    };
    // After the helper's own listener: the chunk's lines are in gateway.lines already.
    function check() {
      const found = gateway.lines.slice(from).find(match);
      if (found === undefined) return;
      done();
      resolve(found);
    }
    for (const s of streams) s.on('data', check);
    gateway.child.once('exit', exited);
    check();
  });
}

/** SIGHUP, and the reload's log line for MAPPINGS_DIR. */
async function reload(): Promise<Record<string, unknown>> {
  const line = nextLine((l) => l.includes('"set":"MAPPINGS_DIR"') && /mappings reload(ed| refused| failed)/.test(l));
  gateway.child.kill('SIGHUP');
  return JSON.parse(await line) as Record<string, unknown>;
}

const read = (id: number) => fetchReply(`${gateway.url}/api/client?id=${id}`);

async function metric(sample: string): Promise<number | undefined> {
  const text = await (await fetch(gateway.metricsUrl!)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

async function digest(): Promise<string | undefined> {
  const text = await (await fetch(gateway.metricsUrl!)).text();
  const digests = [...text.matchAll(/^legacy_gateway_mappings_info\{digest="([0-9a-f]+)"\} 1$/gm)].map(([, d]) => d);
  expect(digests.length).toBe(1);
  return digests[0];
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lgw-reload-'));
  cpSync(path.resolve('mappings'), dir, { recursive: true });
  v1 = await startRecordingUpstream(async (req, res) => {
    const id = /^\/api\/v1\/clients\/(\d+)$/.exec(req.url)?.[1];
    if (id === undefined) return json(res, 404, { error: { code: 'unknown_resource', message: 'no' } });
    const held = hold;
    if (held) {
      held.arrived();
      await held.release;
    }
    json(res, 200, client(Number(id)));
  });
  gateway = await startGatewayProcess(v1.url, { MAPPINGS_DIR: dir, METRICS_PORT: '0' });
});

afterAll(async () => {
  await gateway?.stop();
  await v1?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('SIGHUP reloads MAPPINGS_DIR', () => {
  it('counts no reload at start, and names the digest of the set in service', async () => {
    for (const result of ['ok', 'invalid', 'error']) expect(await metric(`legacy_gateway_mapping_reloads_total{result="${result}"}`)).toBe(0);
    expect(await digest()).toMatch(/^[0-9a-f]{12}$/);
  });

  it('serves a renamed field to the next read, while a read routed before finishes on the old set', async () => {
    const before = await read(1);
    expect(before.status).toBe(200);
    expect(before.text).toContain('"first_name":"Ann"');
    const digestBefore = await digest();

    // A read that reaches v1 before the reload, and is answered after it.
    let release: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (hold = { arrived: resolve, release: new Promise<void>((r) => (release = r)) }));
    const inFlight = read(2);
    await arrived;
    hold = undefined;

    renameClientField('first_name', 'given_name');
    const logged = await reload();
    expect(logged).toMatchObject({ set: 'MAPPINGS_DIR', changed: true, previous: digestBefore });
    release();

    const old = await inFlight;
    expect(old.status).toBe(200);
    expect(old.text).toContain('"first_name":"Ann"');
    expect(old.text).not.toContain('given_name');

    // id 1's reply was cached under the old set: not served again.
    for (const id of [1, 2]) {
      const after = await read(id);
      expect(after.status).toBe(200);
      expect(after.text).toContain('"given_name":"Ann"');
      expect(after.text).not.toContain('"first_name"');
      // Only the legacy field's spelling changed: the rest is the same reply.
      if (id === 1) expect(after.text).toBe(before.text.replace('"first_name":"Ann"', '"given_name":"Ann"'));
    }
    expect(await metric('legacy_gateway_mapping_reloads_total{result="ok"}')).toBe(1);
    expect(await digest()).toBe(logged.digest);
    expect(logged.digest).not.toBe(digestBefore);
  });

  it('refuses an invalid set with one log line naming the file and the reason, and goes on serving the set in service', async () => {
    const served = await read(1);
    const digestBefore = await digest();
    const from = gateway.lines.length;
    writeFileSync(path.join(dir, 'broken.yaml'), 'method: broken\nkind: nonsense\n');
    const logged = await reload();
    expect(logged).toMatchObject({ set: 'MAPPINGS_DIR', file: 'broken.yaml', level: 50 });
    expect(typeof logged.reason).toBe('string');
    expect(String(logged.msg)).toContain(`broken.yaml: ${String(logged.path ? `${String(logged.path)}: ` : '')}${String(logged.reason)}`);
    expect(gateway.lines.slice(from).filter((l) => l.includes('broken.yaml'))).toHaveLength(1);

    const after = await read(1);
    expect(after.status).toBe(200);
    expect(after.text).toBe(served.text);
    expect(await metric('legacy_gateway_mapping_reloads_total{result="invalid"}')).toBe(1);
    expect(await metric('legacy_gateway_mapping_reloads_total{result="ok"}')).toBe(1);
    expect(await digest()).toBe(digestBefore);
    rmSync(path.join(dir, 'broken.yaml'));
  });

  it('answers every one of 200 concurrent reads across a valid and then an invalid reload, each with the old or the new set', async () => {
    const ids = [1, 2, 3, 4, 5];
    const oldBodies = new Map<number, string>();
    for (const id of ids) oldBodies.set(id, (await read(id)).text);
    renameClientField('given_name', 'forename');

    const replies: Array<{ id: number; status: number; text: string }> = [];
    let next = 0;
    let valid: Promise<Record<string, unknown>> | undefined;
    let invalid: Promise<Record<string, unknown>> | undefined;
    const worker = async () => {
      while (next < 200) {
        const n = next++;
        // The valid reload a quarter of the way through, the invalid one past the middle.
        if (n === 50) valid = reload();
        if (n === 120) {
          await valid;
          writeFileSync(path.join(dir, 'broken.yaml'), 'method: broken\nkind: nonsense\n');
          invalid = reload();
        }
        const id = ids[n % ids.length]!;
        const reply = await read(id);
        replies.push({ id, status: reply.status, text: reply.text });
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    expect(await valid).toMatchObject({ changed: true });
    expect(await invalid).toMatchObject({ file: 'broken.yaml' });

    const newBodies = new Map<number, string>();
    for (const id of ids) newBodies.set(id, (await read(id)).text);
    expect(replies).toHaveLength(200);
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect([oldBodies.get(reply.id), newBodies.get(reply.id)]).toContain(reply.text);
    }
    for (const id of ids) expect(newBodies.get(id)).toBe(oldBodies.get(id)!.replace('"given_name":"Ann"', '"forename":"Ann"'));
    expect(replies.some((r) => r.text === oldBodies.get(r.id))).toBe(true);
    expect(replies.some((r) => r.text === newBodies.get(r.id))).toBe(true);
    expect(await metric('legacy_gateway_mapping_reloads_total{result="ok"}')).toBe(2);
    expect(await metric('legacy_gateway_mapping_reloads_total{result="invalid"}')).toBe(2);
    expect(gateway.child.exitCode).toBeNull();
  });
});
