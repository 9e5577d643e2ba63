// Payment claims in PostgreSQL across a failover, black box: a real primary and a real streaming standby
// (pg_basebackup), `node dist/cli.js serve` processes in front of a recording fake v1 that counts the payment
// POSTs it received, and a TCP forwarder standing for the address a failover moves (a virtual IP, a DNS name).
// - The standby streams asynchronously (the primary names none in synchronous_standby_names): the gateway
//   refuses to start (exit 2, one line naming IDEMPOTENCY_URL and IDEMPOTENCY_ACCEPT_RISK=async-standby), and
//   starts with the risk accepted.
// - The standby named in synchronous_standby_names: a payment is made; a second one is sent and, while its
//   POST is at v1, the primary is killed (SIGKILL), the standby promoted and the address moved to it. The
//   first caller gets its reply, every repeat on both replicas replays the first replies, never a second POST.
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchReply, type Reply } from '../helpers/fetch-reply.js';
import { runGatewayProcess, startGatewayProcess, until, type GatewayProcess } from '../helpers/gateway-process.js';
import { startTestPostgres, startTestStandby, type TestPostgres, type TestStandby } from '../helpers/postgres-server.js';
import { json, startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.js';

const GATEWAY_SECRET = 'e2e-failover-claims-gateway-secret-0123456789';
const CALLER_KEY = 'caller-api-key-FAILOVER-CLAIMS-1';
const TOKEN = 'tok_visa_FAILOVER_CLAIMS_SECRET';
const STANDBY = 'claims_standby';

let v1: RecordingUpstream;
let paymentIds = 9100;
let holdPayments = false;
const held: Array<() => void> = [];
const started: GatewayProcess[] = [];
const printed: string[] = [];

interface PaymentReply extends Reply {
  body: { status: string; code: number; response: string };
}

const payment = (amount: string) => ({ client_id: '1', revenue_amount: amount, send_email: '0', token: TOKEN });
const paymentPosts = () => v1.received.filter((r) => r.method === 'POST' && r.url === '/api/v1/payments').length;
const paidReply = (id: number) => ({ status: 'success', code: 12, response: `payment added (payment id ${id})` });

async function pay(gateway: GatewayProcess, fields: Record<string, string>, key: string): Promise<PaymentReply> {
  return (await fetchReply(`${gateway.url}/api/payment`, {
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { 'x-api-key': CALLER_KEY, 'idempotency-key': key },
  })) as PaymentReply;
}

/** A repeat, tried until the claims store answers it (503 "made no payment" while the address moves). */
async function repeatOnceAnswered(gateway: GatewayProcess, fields: Record<string, string>, key: string): Promise<PaymentReply> {
  let reply: PaymentReply | undefined;
  await until(
    'a repeat the claims store answers',
    async () => {
      reply = await pay(gateway, fields, key);
      return reply.status !== 503;
    },
    30_000,
  );
  return reply!;
}

const releaseHeld = () => {
  holdPayments = false;
  for (const release of held.splice(0)) release();
};

/** The address a failover moves: every connection goes to `target`; moving it cuts the open ones, as a
 * primary that died cuts them. */
async function startForwarder(target: number): Promise<{ url: string; moveTo(port: number): void; close(): Promise<void> }> {
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `postgres://gateway@127.0.0.1:${port}/postgres`,
    moveTo(port) {
      target = port;
      for (const socket of open) socket.destroy();
    },
    close: () => {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** One statement on a server, on a connection of its own. */
async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The primary's view of the standby: its sync_state once it streams. */
async function standbyState(primary: TestPostgres): Promise<string | undefined> {
  const rows = await query<{ sync_state: string }>(primary.url, `SELECT sync_state FROM pg_stat_replication WHERE application_name = '${STANDBY}' AND state = 'streaming'`);
  return rows[0]?.sync_state;
}

let primary: TestPostgres;
let standby: TestStandby;

beforeAll(async () => {
  v1 = await startRecordingUpstream((req, res) => {
    const url = new URL(req.url, 'http://v1');
    if (req.method === 'GET' && url.pathname === '/api/v1/clients/1') return json(res, 200, { object: 'client', id: 1, first_name: 'Ada', last_name: 'Lovelace' });
    if (req.method === 'POST' && url.pathname === '/api/v1/payments') {
      const body = JSON.parse(req.body.toString('utf8')) as { amount?: number };
      const id = ++paymentIds;
      const answer = () => json(res, 201, { object: 'payment', id, client_id: 1, amount: body.amount });
      if (holdPayments) held.push(answer);
      else answer();
      return;
    }
    if (req.method === 'GET' && url.pathname === '/api/v1') return json(res, 200, { object: 'api' });
    json(res, 404, { error: { code: 'unknown_resource', message: 'no such resource' } });
  });
  primary = await startTestPostgres();
  standby = await startTestStandby(primary, STANDBY);
  await until('the standby streaming', async () => (await standbyState(primary)) === 'async', 20_000);
}, 60_000);

afterAll(async () => {
  releaseHeld();
  await Promise.all(started.map((g) => g.stop('SIGKILL')));
  await v1?.close();
  await standby?.close();
  await primary?.close();
  // No log line, nor what a refused start printed, holds the shared secret, the caller's key or the card token.
  const text = [...started.flatMap((g) => g.lines), ...printed].join('\n');
  for (const secret of [GATEWAY_SECRET, CALLER_KEY, TOKEN]) expect(text).not.toContain(secret);
}, 30_000);

describe('claims in PostgreSQL with a streaming standby', () => {
  it('the standby asynchronous: the start is refused (exit 2, one line naming the risk); with IDEMPOTENCY_ACCEPT_RISK=async-standby it starts', async () => {
    const refused = await runGatewayProcess(v1.url, { IDEMPOTENCY_URL: primary.url, GATEWAY_SECRET });
    printed.push(refused.output);
    expect(refused.code).toBe(2);
    expect(refused.output.split('\n').filter((l) => l.startsWith('legacy-gateway:'))).toEqual([
      'legacy-gateway: cannot start: IDEMPOTENCY_URL: this PostgreSQL streams to its standby servers asynchronously (none is named in synchronous_standby_names), so a failover could forget payment claims and a repeated payment could be paid twice; name a standby in synchronous_standby_names, or accept the risk with IDEMPOTENCY_ACCEPT_RISK=async-standby',
    ]);
    expect(refused.output).not.toContain('"msg":"legacy-gateway listening"');

    const accepting = await startGatewayProcess(v1.url, { IDEMPOTENCY_URL: primary.url, GATEWAY_SECRET, IDEMPOTENCY_ACCEPT_RISK: 'async-standby' });
    started.push(accepting);
    try {
      expect(accepting.lines.some((l) => l.includes('"msg":"legacy-gateway listening"') && l.includes('"paymentClaims":"postgres"'))).toBe(true);
      expect(accepting.lines.some((l) => l.includes('(accepted: IDEMPOTENCY_ACCEPT_RISK=async-standby)'))).toBe(true);
      const paid = await pay(accepting, payment('30.00'), 'failover-accepted');
      expect([paid.status, paid.body]).toEqual([200, paidReply(paymentIds)]);
    } finally {
      await accepting.stop();
    }
  }, 60_000);

  it('the standby synchronous, the primary killed while a POST is at v1, the standby promoted, the address moved: never a second POST, the repeats replay the first replies', async () => {
    await query(primary.url, `ALTER SYSTEM SET synchronous_standby_names = '${STANDBY}'`);
    await query(primary.url, 'SELECT pg_reload_conf()');
    await until('the standby synchronous', async () => (await standbyState(primary)) === 'sync', 20_000);
    const address = await startForwarder(primary.port);
    try {
      // The held POST is answered only after the kill and the promotion, however long those take: its
      // timeout is one it never nears.
      const env = { IDEMPOTENCY_URL: address.url, GATEWAY_SECRET, UPSTREAM_TIMEOUT_MS: '600000' };
      const [a, b] = await Promise.all([startGatewayProcess(v1.url, env), startGatewayProcess(v1.url, env)]);
      started.push(a, b);
      v1.received.length = 0;

      // A payment made and answered before the failover.
      const before = await pay(a, payment('31.00'), 'failover-paid');
      expect([before.status, before.body, before.headers.get('idempotent-replayed')]).toEqual([200, paidReply(paymentIds), null]);

      // A payment at v1 when the primary dies.
      holdPayments = true;
      const pending = pay(a, payment('32.00'), 'failover-held');
      await until('the second payment POST at v1', () => paymentPosts() === 2);
      await primary.kill();
      await standby.promote();
      address.moveTo(standby.port);
      releaseHeld();
      const first = await pending;
      expect([first.status, first.body, first.headers.get('idempotent-replayed')]).toEqual([200, paidReply(paymentIds), null]);

      for (const gateway of [b, a]) {
        const paidRepeat = await repeatOnceAnswered(gateway, payment('31.00'), 'failover-paid');
        expect([paidRepeat.status, paidRepeat.text, paidRepeat.headers.get('idempotent-replayed')]).toEqual([200, before.text, 'true']);
        const heldRepeat = await repeatOnceAnswered(gateway, payment('32.00'), 'failover-held');
        expect([heldRepeat.status, heldRepeat.text, heldRepeat.headers.get('idempotent-replayed')]).toEqual([200, first.text, 'true']);
      }
      expect(paymentPosts()).toBe(2);
      for (const gateway of [a, b]) {
        expect([gateway.child.exitCode, gateway.child.signalCode]).toEqual([null, null]);
        expect((await fetchReply(`${gateway.url}/readyz`)).body).toMatchObject({ status: 'ready', claims: 'up' });
      }
    } finally {
      await address.close();
    }
  }, 90_000);
});
