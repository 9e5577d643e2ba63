// The payment claims port kept in PostgreSQL, against a real server: a claim is taken only when nothing
// live stands in its way (absent, expired, or open), otherwise the claim there is answered field for field;
// only its owner updates it; an expired row is never read; a stopped server makes every call fail at once
// with 'unreachable', and the same store works once it is back; a claim committed before a crash is there
// after it; the table is made when missing; a commit whose standby wait was cancelled is 'not-durable'; the
// URL's password is never logged.
import { createHmac } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import type { Logger } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClaimStoreError, type ClaimRecord, type StoredPaymentReply } from '../../../../../src/payment/claims/claim-store.js';
import {
  CLAIMS_TABLE,
  createPostgresClaimStore,
  maskPostgresUrl,
  type PostgresClaimStore,
  type PostgresClaimStoreOptions,
} from '../../../../../src/gateway/state/claims/claims-postgres.js';
import { capturedLogger, type LogLine } from '../../../../helpers/captured-logger.js';
import { settlesAtOnce } from '../../../../helpers/settles-at-once.js';
import { startTestPostgres, type TestPostgres } from '../../../../helpers/postgres-server.js';


/** The lines about PostgreSQL's state: one per change. */
const stateLines = (lines: LogLine[]) => lines.filter((l) => /^PostgreSQL (connected|reachable again|unreachable)/.test(l.msg)).map((l) => l.msg);

const PASSWORD = 'hunter2-do-not-log';
/** The URL with a password in it (trust authentication ignores it): it must never reach a log line. */
const withPassword = (url: string) => url.replace('gateway@', `gateway:${PASSWORD}@`);
const inDatabase = (url: string, database: string) => url.replace(/\/[^/]*$/, `/${database}`);

/** A statement on a connection of its own (the server is restarted between tests). */
async function sql<R extends pg.QueryResultRow = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** What the engine passes: HMACs, never a key or a field in clear. */
const hmac = (s: string) => createHmac('sha256', 'claims-postgres-test').update(s).digest('hex');
let ids = 0;
const newId = () => hmac(`idempotency-key-${ids++}`);

function claimed(overrides: Partial<ClaimRecord> = {}): ClaimRecord {
  return { phase: 'claimed', fingerprint: hmac('fields'), caller: hmac('api-key'), owner: 'run-a', leaseUntil: Date.now() + 10_000, replays: true, ...overrides };
}

/** Keys in an order jsonb would change (it sorts by length, then bytes), and a body in the contract's order. */
const REPLY: StoredPaymentReply = {
  httpStatus: 200,
  headers: { 'x-zeta': 'last', 'content-type': 'application/json; charset=utf-8', a: 'first' },
  body: { status: 'failure', code: 8, response: 'The payment could not be made.' },
};

function answered(replays: boolean, overrides: Partial<ClaimRecord> = {}): ClaimRecord {
  return claimed({ phase: 'answered', reply: REPLY, replays, ...overrides });
}

async function refusal(work: Promise<unknown>): Promise<{ fault: string }> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ClaimStoreError);
  return { fault: (err as ClaimStoreError).fault };
}

let server: TestPostgres;
const opened: PostgresClaimStore[] = [];
function open(url: string, logger: Logger, extra: Partial<PostgresClaimStoreOptions> = {}): PostgresClaimStore {
  const store = createPostgresClaimStore({ url, logger, ...extra });
  opened.push(store);
  return store;
}

beforeAll(async () => {
  server = await startTestPostgres();
});
afterAll(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
  await server.close();
});

describe('claims against a running PostgreSQL', () => {
  let store: PostgresClaimStore;
  beforeAll(async () => {
    store = open(server.url, capturedLogger().logger);
    await store.started;
  });

  it('takes a claim on an id nobody holds, and reads it back field for field', async () => {
    const id = newId();
    const record = claimed();
    expect(await store.claim(id, record, 60_000, Date.now())).toStrictEqual({ taken: true });
    expect(await store.read(id)).toStrictEqual(record);
  });

  it('answers a second claim of the same id with the claim there, field for field', async () => {
    const id = newId();
    const first = claimed({ owner: 'run-a' });
    await store.claim(id, first, 60_000, Date.now());
    expect(await store.claim(id, claimed({ owner: 'run-b' }), 60_000, Date.now())).toStrictEqual({ taken: false, existing: first });
  });

  it('keeps a reply as it was given: the headers in their order, the body in the contract order', async () => {
    const id = newId();
    const record = answered(true);
    await store.claim(id, record, 60_000, Date.now());
    const result = await store.claim(id, claimed({ owner: 'run-b' }), 60_000, Date.now());
    expect(result).toStrictEqual({ taken: false, existing: record });
    const existing = result.taken ? undefined : result.existing;
    expect(JSON.stringify(existing?.reply)).toBe(JSON.stringify(REPLY));
    expect(JSON.stringify((await store.read(id))?.reply)).toBe(JSON.stringify(REPLY));
  });

  it('takes a claim over an expired row', async () => {
    const id = newId();
    const now = Date.now();
    await store.claim(id, answered(true, { owner: 'run-a' }), 1000, now - 5000);
    const mine = claimed({ owner: 'run-b' });
    expect(await store.claim(id, mine, 60_000, now)).toStrictEqual({ taken: true });
    expect(await store.read(id)).toStrictEqual(mine);
  });

  it('takes a claim over an answered row that does not replay (a released keyless claim), and answers what that row held', async () => {
    const id = newId();
    await store.claim(id, answered(false, { owner: 'run-a' }), 60_000, Date.now());
    const mine = claimed({ owner: 'run-b' });
    expect(await store.claim(id, mine, 60_000, Date.now())).toStrictEqual({ taken: true, replaced: { fingerprint: hmac('fields') } });
    expect(await store.read(id)).toStrictEqual(mine);
  });

  it('answers the ticket of the row it replaced (the client an earlier run of the claim created)', async () => {
    const id = newId();
    const ticket = { sentAt: Date.now() - 5000, afterId: 0, filters: { client_id: '701' }, match: { amount: 'h' }, client: '701', amount: '5', unknown: false, createdClient: '701' };
    await store.claim(id, answered(false, { owner: 'run-a', fingerprint: hmac('other fields'), ticket }), 60_000, Date.now());
    expect(await store.claim(id, claimed({ owner: 'run-b' }), 60_000, Date.now())).toStrictEqual({ taken: true, replaced: { fingerprint: hmac('other fields'), ticket } });
  });

  it('takes a claim over a claimed row whose lease ran out (its owner stopped before writing to v1)', async () => {
    const id = newId();
    const now = Date.now();
    await store.claim(id, claimed({ owner: 'run-a', leaseUntil: now - 1 }), 60_000, now - 10_000);
    const mine = claimed({ owner: 'run-b' });
    expect(await store.claim(id, mine, 60_000, now)).toStrictEqual({ taken: true, replaced: { fingerprint: hmac('fields') } });
    expect(await store.read(id)).toStrictEqual(mine);
  });

  it('does not take a claim over a sent row whose lease ran out (a v1 write may have gone out)', async () => {
    const id = newId();
    const now = Date.now();
    const sent = claimed({ phase: 'sent', owner: 'run-a', leaseUntil: now - 1 });
    await store.claim(id, sent, 60_000, now - 10_000);
    expect(await store.claim(id, claimed({ owner: 'run-b' }), 60_000, now)).toStrictEqual({ taken: false, existing: sent });
    expect(await store.read(id)).toStrictEqual(sent);
  });

  it('does not take a claim over a claimed row whose lease runs, nor over an answered row that replays', async () => {
    const running = newId();
    const held = claimed({ owner: 'run-a', leaseUntil: Date.now() + 10_000 });
    await store.claim(running, held, 60_000, Date.now());
    expect(await store.claim(running, claimed({ owner: 'run-b' }), 60_000, Date.now())).toStrictEqual({ taken: false, existing: held });

    const replaying = newId();
    const done = answered(true, { owner: 'run-a' });
    await store.claim(replaying, done, 60_000, Date.now());
    expect(await store.claim(replaying, claimed({ owner: 'run-b' }), 60_000, Date.now())).toStrictEqual({ taken: false, existing: done });
  });

  it('gives an id to exactly one of many concurrent claims; the others are answered the winner', async () => {
    const id = newId();
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.claim(id, claimed({ owner: `run-${i}` }), 60_000, now)));
    const winners = results.flatMap((r, i) => (r.taken ? [`run-${i}`] : []));
    expect(winners).toHaveLength(1);
    const losers = results.filter((r) => !r.taken);
    expect(losers).toHaveLength(19);
    for (const r of losers) expect(r.taken ? undefined : r.existing.owner).toBe(winners[0]);
  });

  it('lets the owner update its claim, and nobody else', async () => {
    const id = newId();
    const first = claimed({ owner: 'run-a' });
    await store.claim(id, first, 60_000, Date.now());
    const sent = { ...first, phase: 'sent' as const, leaseUntil: first.leaseUntil + 5000 };
    expect(await store.update(id, sent)).toBe(true);
    expect(await store.read(id)).toStrictEqual(sent);

    const done = { ...sent, phase: 'answered' as const, reply: REPLY, replays: false };
    expect(await store.update(id, done, { durable: true })).toBe(true);
    expect(await store.read(id)).toStrictEqual(done);

    expect(await store.update(id, { ...done, owner: 'run-b', replays: true })).toBe(false);
    expect(await store.read(id)).toStrictEqual(done);
    expect(await store.update(newId(), done)).toBe(false);
  });

  it('keeps the expiry on an update without ttlMs, and restarts it from the update with one', async () => {
    const id = newId();
    const now = Date.now();
    const record = claimed();
    await store.claim(id, record, 30_000, now);
    const expiry = async () => Number((await sql<{ expires_at: string }>(server.url, `SELECT expires_at FROM ${CLAIMS_TABLE} WHERE id = $1`, [id]))[0]?.expires_at);
    expect(await store.update(id, { ...record, phase: 'sent' })).toBe(true);
    expect(await expiry()).toBe(now + 30_000);

    const before = Date.now();
    expect(await store.update(id, { ...record, phase: 'sent' }, { ttlMs: 3_600_000 })).toBe(true);
    const after = Date.now();
    const restarted = await expiry();
    expect(restarted).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(restarted).toBeLessThanOrEqual(after + 3_600_000);
  });

  it('never reads, nor updates, a row whose expiry passed (even before it is swept)', async () => {
    const id = newId();
    const now = Date.now();
    const record = claimed();
    expect(await store.claim(id, record, 1000, now - 5000)).toStrictEqual({ taken: true });
    expect(await store.read(id)).toBeUndefined();
    expect(await store.update(id, { ...record, phase: 'sent' })).toBe(false);
    expect(await sql(server.url, `SELECT phase, expires_at FROM ${CLAIMS_TABLE} WHERE id = $1`, [id])).toStrictEqual([{ phase: 'claimed', expires_at: String(now - 4000) }]);
  });

  it('holds in its columns exactly what it was given (HMACs, the owner, the reply as given)', async () => {
    const id = newId();
    const now = Date.now();
    const record = answered(true, { leaseUntil: now + 7000 });
    await store.claim(id, record, 86_400_000, now);
    expect(await sql(server.url, `SELECT * FROM ${CLAIMS_TABLE} WHERE id = $1`, [id])).toStrictEqual([
      {
        id,
        caller: hmac('api-key'),
        fingerprint: hmac('fields'),
        owner: 'run-a',
        phase: 'answered',
        lease_until: String(now + 7000),
        replays: true,
        reply: { httpStatus: 200, headers: Object.entries(REPLY.headers), body: REPLY.body },
        expires_at: String(now + 86_400_000),
        ticket: null,
        settle_by: null,
        settle_until: null,
      },
    ]);
  });

  it('keeps a ticket, lists the claims whose outcome is unknown, and gives one settle lease at a time', async () => {
    const now = Date.now();
    const sent = { sentAt: now - 5000, afterId: 3, filters: { client_id: '1' }, match: { amount: 'h' }, client: '1', amount: '5' };
    const ticket = { ...sent, unknown: true };
    const unknown = newId();
    const inFlight = newId();
    await store.claim(unknown, answered(true, { ticket }), 60_000, now);
    await store.claim(inFlight, { ...claimed(), phase: 'sent', leaseUntil: now + 60_000, ticket: sent }, 60_000, now);
    expect((await store.read(unknown))?.ticket).toStrictEqual(ticket);
    const listed = await store.listUnknown(now, 100);
    expect(listed.map((c) => c.id)).toContain(unknown);
    expect(listed.map((c) => c.id)).not.toContain(inFlight);
    expect(await store.settleLease(unknown, 'r1', 10_000, now)).toBe(true);
    expect(await store.settleLease(unknown, 'r2', 10_000, now)).toBe(false);
    expect(await store.settleLease(unknown, 'r1', 10_000, now)).toBe(true);
    expect(await store.settleLease(unknown, 'r2', 10_000, now + 10_000)).toBe(true);
  });

  it('resolves changed() after the time asked for, or after 200 ms at most, and never rejects', async () => {
    // The wait is a timer: faked, so each is seen still waiting 1 ms before its time and resolved at it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (const [asked, waits] of [[20, 20], [60_000, 200]] as const) {
        let resolved = false;
        const changed = store.changed(newId(), asked).then(() => (resolved = true));
        await vi.advanceTimersByTimeAsync(waits - 1);
        expect(resolved, `changed(${asked})`).toBe(false);
        await vi.advanceTimersByTimeAsync(1);
        expect(resolved, `changed(${asked})`).toBe(true);
        await changed;
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('throws TypeError for a ttl or time that is not a whole number of ms', async () => {
    await expect(store.claim(newId(), claimed(), 1.5, Date.now())).rejects.toThrow(TypeError);
    await expect(store.claim(newId(), claimed(), 0, Date.now())).rejects.toThrow(TypeError);
    await expect(store.update(newId(), claimed(), { ttlMs: Number.NaN })).rejects.toThrow(TypeError);
    await expect(store.claim(newId(), claimed({ leaseUntil: Date.now() + 0.5 }), 60_000, Date.now())).rejects.toThrow(TypeError);
  });

  it('a value PostgreSQL refuses is a ClaimStoreError, and PostgreSQL is not taken for down', async () => {
    const { logger, lines } = capturedLogger();
    const own = open(server.url, logger);
    await own.started;
    // A text column takes no NUL character: 22021.
    expect((await refusal(own.claim(newId(), claimed({ owner: 'run\u0000a' }), 60_000, Date.now()))).fault).toBe('unreachable');
    expect(own.isUp()).toBe(true);
    expect(lines.filter((l) => l.msg === 'PostgreSQL refused a payment claim statement').map((l) => [l.level, l.reason])).toStrictEqual([[50, '22021']]);
    expect(stateLines(lines)).toStrictEqual(['PostgreSQL connected: payment claims are kept in PostgreSQL']);
  });
});

describe('the table', () => {
  it('is made when missing (a fresh database), with its index on expires_at and its check on phase', async () => {
    await sql(server.url, 'CREATE DATABASE fresh');
    const url = inDatabase(server.url, 'fresh');
    const { logger, lines } = capturedLogger();
    const store = open(url, logger);
    await store.started;
    expect(store.isUp()).toBe(true);
    expect(stateLines(lines)).toStrictEqual(['PostgreSQL connected: payment claims are kept in PostgreSQL']);
    const columns = await sql(url, `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`, [CLAIMS_TABLE]);
    expect(columns).toStrictEqual([
      { column_name: 'id', data_type: 'text', is_nullable: 'NO' },
      { column_name: 'caller', data_type: 'text', is_nullable: 'NO' },
      { column_name: 'fingerprint', data_type: 'text', is_nullable: 'NO' },
      { column_name: 'owner', data_type: 'text', is_nullable: 'NO' },
      { column_name: 'phase', data_type: 'text', is_nullable: 'NO' },
      { column_name: 'lease_until', data_type: 'bigint', is_nullable: 'NO' },
      { column_name: 'replays', data_type: 'boolean', is_nullable: 'NO' },
      { column_name: 'reply', data_type: 'jsonb', is_nullable: 'YES' },
      { column_name: 'expires_at', data_type: 'bigint', is_nullable: 'NO' },
      { column_name: 'ticket', data_type: 'jsonb', is_nullable: 'YES' },
      { column_name: 'settle_by', data_type: 'text', is_nullable: 'YES' },
      { column_name: 'settle_until', data_type: 'bigint', is_nullable: 'YES' },
    ]);
    expect(await sql(url, 'SELECT indexdef FROM pg_indexes WHERE tablename = $1 ORDER BY indexname', [CLAIMS_TABLE])).toStrictEqual([
      { indexdef: `CREATE INDEX ${CLAIMS_TABLE}_expires_at ON public.${CLAIMS_TABLE} USING btree (expires_at)` },
      { indexdef: `CREATE UNIQUE INDEX ${CLAIMS_TABLE}_pkey ON public.${CLAIMS_TABLE} USING btree (id)` },
      { indexdef: `CREATE INDEX ${CLAIMS_TABLE}_ticket ON public.${CLAIMS_TABLE} USING btree (phase) WHERE (ticket IS NOT NULL)` },
    ]);
    const bad = await sql(url, `INSERT INTO ${CLAIMS_TABLE} VALUES ('x', 'c', 'f', 'o', 'paid', 0, false, NULL, 0)`).catch((e: unknown) => e);
    expect((bad as { code?: string }).code).toBe('23514');
    expect(await store.claim(newId(), claimed(), 60_000, Date.now())).toStrictEqual({ taken: true });
  });

  it('is used as it is when it exists, and its expired rows are swept at start (live ones kept)', async () => {
    await sql(server.url, 'CREATE DATABASE sweeping');
    const url = inDatabase(server.url, 'sweeping');
    const first = open(url, capturedLogger().logger);
    await first.started;
    const now = Date.now();
    const live = newId();
    await first.claim(newId(), claimed(), 1000, now - 5000);
    await first.claim(newId(), answered(true), 1000, now - 5000);
    await first.claim(live, claimed(), 60_000, now);
    await first.close();
    expect(await sql(url, `SELECT count(*)::int AS n FROM ${CLAIMS_TABLE}`)).toStrictEqual([{ n: 3 }]);

    const second = open(url, capturedLogger().logger);
    await second.started;
    expect(await sql(url, `SELECT id FROM ${CLAIMS_TABLE}`)).toStrictEqual([{ id: live }]);
  });

  it('is made again by the call after one that found it dropped', async () => {
    await sql(server.url, 'CREATE DATABASE dropping');
    const url = inDatabase(server.url, 'dropping');
    const store = open(url, capturedLogger().logger);
    await store.started;
    await sql(url, `DROP TABLE ${CLAIMS_TABLE}`);
    expect((await refusal(store.claim(newId(), claimed(), 60_000, Date.now()))).fault).toBe('unreachable');
    expect(await store.claim(newId(), claimed(), 60_000, Date.now())).toStrictEqual({ taken: true });
  });
});

describe('outages', () => {
  afterEach(async () => {
    await server.start();
  });

  it('PostgreSQL stopped: every call fails at once with unreachable, one line down, one up, and the same store works once it is back', async () => {
    const { logger, lines, raw } = capturedLogger();
    // A deadline no test reaches: a call that waited for it rather than fail at once would end the test by
    // its timeout, so no clock is read here.
    const store = open(withPassword(server.url), logger, { commandTimeoutMs: 600_000 });
    await store.started;
    const id = newId();
    const record = claimed();
    await store.claim(id, record, 60_000, Date.now());

    await server.stop();
    for (const work of [() => store.claim(newId(), claimed(), 60_000, Date.now()), () => store.read(id), () => store.update(id, record)]) {
      expect((await refusal(work())).fault).toBe('unreachable');
    }
    expect(store.isUp()).toBe(false);

    await server.start();
    expect(await store.read(id)).toStrictEqual(record);
    expect(store.isUp()).toBe(true);
    expect(await store.claim(newId(), claimed(), 60_000, Date.now())).toStrictEqual({ taken: true });
    expect(stateLines(lines)).toStrictEqual([
      'PostgreSQL connected: payment claims are kept in PostgreSQL',
      'PostgreSQL unreachable: payments that need a claim are refused, reconnecting in the background',
      'PostgreSQL reachable again: payment claims can be taken again',
    ]);
    const down = lines.find((l) => l.msg.startsWith('PostgreSQL unreachable'));
    expect(down).toMatchObject({ level: 50, postgres: `postgres://gateway:***@127.0.0.1:${server.port}/postgres`, reason: 'ECONNREFUSED' });
    expect(raw.some((l) => l.includes(PASSWORD))).toBe(false);
  });

  it('PostgreSQL down at start: started settles, and the store comes up on its own once PostgreSQL is back', async () => {
    await server.stop();
    const { logger, lines } = capturedLogger();
    const store = open(server.url, logger);
    await store.started;
    expect(store.isUp()).toBe(false);
    expect(stateLines(lines)).toStrictEqual(['PostgreSQL unreachable at start: payments that need a claim are refused, reconnecting in the background']);
    expect(lines.find((l) => l.msg.startsWith('PostgreSQL unreachable'))?.level).toBe(40);

    await server.start();
    // Nothing calls it: its background retry finds PostgreSQL back (no event to wait on, so a bounded poll).
    await vi.waitFor(() => expect(store.isUp()).toBe(true), { timeout: 5000, interval: 20 });
    expect(stateLines(lines)).toStrictEqual([
      'PostgreSQL unreachable at start: payments that need a claim are refused, reconnecting in the background',
      'PostgreSQL reachable again: payment claims can be taken again',
    ]);
    expect(await store.claim(newId(), claimed(), 60_000, Date.now())).toStrictEqual({ taken: true });
  });

  it('a server that accepts connections and never answers: started settles, a call fails at its deadline, and the calls meanwhile at once', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const { logger, lines } = capturedLogger();
      const store = open(`postgres://gateway@127.0.0.1:${port}/postgres`, logger, { commandTimeoutMs: 300 });
      await store.started;
      expect(store.isUp()).toBe(false);
      expect(lines.find((l) => l.msg.startsWith('PostgreSQL unreachable at start'))?.reason).toBe('timeout');
      // The call waits for its deadline (still waiting on the event loop's next turn), then is refused.
      const claim = store.claim(newId(), claimed(), 60_000, Date.now());
      expect(await settlesAtOnce(claim)).toEqual({ state: 'pending' });
      expect((await refusal(claim)).fault).toBe('unreachable');
      // Down: several calls at once are not queued behind one another. The first tries (and waits its
      // deadline), the others are refused at once: settled by the next turn.
      const together = [store.read(newId()), store.read(newId()), store.read(newId())];
      const onTheNextTurn = await Promise.all(together.map(settlesAtOnce));
      expect(onTheNextTurn.map((s) => s.state)).toStrictEqual(['pending', 'rejected', 'rejected']);
      expect((await Promise.all(together.map(refusal))).map((r) => r.fault)).toStrictEqual(['unreachable', 'unreachable', 'unreachable']);
      await store.close();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('PostgreSQL killed (SIGKILL) right after a committed claim: the claim is there once it has started again', async () => {
    const store = open(server.url, capturedLogger().logger);
    await store.started;
    const id = newId();
    const record = claimed({ phase: 'sent' });
    expect(await store.claim(id, record, 60_000, Date.now())).toStrictEqual({ taken: true });
    await server.kill();
    await server.start();
    expect(await sql(server.url, `SELECT owner, phase FROM ${CLAIMS_TABLE} WHERE id = $1`, [id])).toStrictEqual([{ owner: 'run-a', phase: 'sent' }]);
    expect(await store.read(id)).toStrictEqual(record);
  });

  it('a commit whose wait for the synchronous standby was cancelled is not-durable (committed on the primary only)', async () => {
    await sql(server.url, 'CREATE DATABASE durability');
    const url = inDatabase(server.url, 'durability');
    const making = open(url, capturedLogger().logger);
    await making.started;
    await making.close();
    await sql(server.url, `ALTER SYSTEM SET synchronous_standby_names = 'ghost'`);
    await server.stop();
    await server.start();
    try {
      const store = open(url, capturedLogger().logger, { commandTimeoutMs: 10_000 });
      await store.started;
      const id = newId();
      const pending = refusal(store.claim(id, claimed(), 60_000, Date.now()));
      // The claim waits for a standby that never comes; it is cancelled, as an operator (or a timeout) would.
      let waiting: number | undefined;
      await vi.waitFor(
        async () => {
          const rows = await sql<{ pid: number }>(server.url, `SELECT pid FROM pg_stat_activity WHERE datname = 'durability' AND wait_event = 'SyncRep'`);
          waiting = rows[0]?.pid;
          expect(waiting).toBeTypeOf('number');
        },
        { timeout: 5000, interval: 20 },
      );
      await sql(server.url, 'SELECT pg_cancel_backend($1)', [waiting]);
      expect((await pending).fault).toBe('not-durable');
      expect((await store.read(id))?.owner).toBe('run-a');
    } finally {
      await sql(server.url, 'ALTER SYSTEM RESET synchronous_standby_names');
      await server.stop();
    }
  });
});

describe('maskPostgresUrl', () => {
  it('masks the password in the authority and in a password parameter, and nothing else', () => {
    expect(maskPostgresUrl('postgres://gw:s3cret@db.internal:5432/claims?sslmode=require')).toBe('postgres://gw:***@db.internal:5432/claims?sslmode=require');
    expect(maskPostgresUrl('postgresql://gw@db/claims?password=s3cret&application_name=lgw')).toBe('postgresql://gw@db/claims?password=***&application_name=lgw');
    expect(maskPostgresUrl('postgres://db/claims')).toBe('postgres://db/claims');
    expect(maskPostgresUrl('not a url s3cret')).toBe('postgres://(unparseable)');
  });
});
