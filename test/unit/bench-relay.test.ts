// The bench's floor, the relay (bench/relay-server.ts): v1's page for the legacy list request sent on unchanged,
// byte for byte, against a recording fake v1; and its summary figures (bench/summary-checks.ts): the gateway's
// CPU per request over the relay's, with no target, said to be outside the same-bytes check.
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Measured } from '../../bench/measure.js';
import { createRelay } from '../../bench/relay-server.js';
import { printRelayFloor } from '../../bench/summary-checks.js';
import * as names from '../../bench/target-names.js';
import { startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

/** A v1 page as no serializer would write it: spacing, key order, escapes and non-ASCII kept as sent. */
const PAGE = Buffer.from('{ "object":"list","total": 2,\n "data":[{"id":7,"first_name":"Zo\\u00eb","city":"Mal\u00e9 \u{1F3DD}"},{"id":8}] }', 'utf8');

let upstream: RecordingUpstream | undefined;
let relay: http.Server | undefined;

async function startRelay(): Promise<string> {
  upstream = await startRecordingUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': PAGE.length, 'x-v1-only': 'yes' }).end(PAGE);
  });
  const server = createRelay(new URL(upstream.url));
  relay = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  vi.restoreAllMocks();
  if (relay) {
    const server = relay;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await upstream?.close();
  relay = undefined;
  upstream = undefined;
});

describe('the bench relay', () => {
  it("sends v1's page for the legacy list on unchanged: status, content-type, length and every byte", async () => {
    const url = await startRelay();
    const res = await fetch(`${url}/api/clients/5/7`, { headers: { 'x-api-key': 'k1' } });
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('content-length')).toBe(String(PAGE.length));
    expect(res.headers.get('x-v1-only')).toBeNull();
    expect(body.equals(PAGE)).toBe(true);
    expect(upstream!.received.map((r) => [r.method, r.url])).toEqual([['GET', '/api/v1/clients?offset=5&limit=7']]);
  });

  it('answers 404 to any other call without asking v1', async () => {
    const url = await startRelay();
    const res = await fetch(`${url}/api/meetourteam/0/20`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('{"status":"failure","response":"not found"}');
    expect(upstream!.received).toEqual([]);
  });
});

const row = (target: string, cpuUsPerRequest: number, rps: number): Measured => ({
  target,
  keys: 'new per request',
  rps,
  p50: 1,
  p99: 2,
  rssMb: 100,
  cpuUsPerRequest,
  errors: 0,
});

describe('the floor figures of the bench summary', () => {
  it('divides the gateway CPU per request by the relay one at each size, with no target, and says the relay is not the same bytes', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const measured = [row(names.relay(10), 40, 3000), row(names.translatedUncached(10), 100, 1500), row(names.relay(1000), 200, 400)];
    printRelayFloor((target) => measured.find((m) => m.target === target), undefined);
    const lines = log.mock.calls.map(([line]) => String(line));
    const figure = (name: string) => lines.find((line) => line.trimStart().startsWith(`${name} `))?.slice(63).trim();
    expect(lines[0]).toContain('gateway / relay');
    expect(lines.slice(0, 2).join(' ')).toContain('left out of the same-bytes check');
    expect(figure('CPU gateway / relay 10')).toBe('2.50x  (CPU 100 vs 40 us/req; req/s 0.50x)');
    expect(figure('CPU gateway / relay 100')).toBe('n/a  (CPU n/a vs n/a us/req; req/s n/a)');
    expect(figure('CPU gateway / relay 1000')).toBe('n/a  (CPU n/a vs 200 us/req; req/s n/a)');
    expect(lines.some((line) => line.includes('Node 26') || line.includes('(<=') || line.includes('(>='))).toBe(false);
  });
});
