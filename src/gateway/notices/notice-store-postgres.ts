// The notices' claims shared by the replicas through PostgreSQL (IDEMPOTENCY_URL=postgres://..., no
// REDIS_URL), implementing notice-store.ts with two tables, made when missing:
//   legacy_gateway_notices          one row per notice: `lease` (its owner, until when), then `delivered`
//                                   or `given-up` (kept 14 days)
//   legacy_gateway_notice_refusals  per window opening and integration, its refused calls (kept 14 days)
// A claim is one INSERT ... ON CONFLICT DO UPDATE ... WHERE, so two replicas never both take a notice no one
// holds. A pool of its own (two connections at most), beside the payment claims': the notices never wait
// behind a payment, and a payment never behind a notice. Every statement has a deadline; an error rejects,
// and the loop tries again at its next round.
import pg from 'pg';
import type { Clock } from '../../payment/claims/system-time.js';
import { KEEP_MS, type NoticeStore } from './notice-store.js';

export const NOTICES_TABLE = 'legacy_gateway_notices';
export const REFUSALS_TABLE = 'legacy_gateway_notice_refusals';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ${NOTICES_TABLE} (id text PRIMARY KEY, state text NOT NULL, owner text NOT NULL, until_ms bigint NOT NULL);
CREATE TABLE IF NOT EXISTS ${REFUSALS_TABLE} (occurrence text NOT NULL, integration text NOT NULL, refused bigint NOT NULL, until_ms bigint NOT NULL, PRIMARY KEY (occurrence, integration));`;

// $1 id, $2 owner, $3 now, $4 lease end. Taken when no row, this owner's lease, or a row past its time.
const CLAIM = `
INSERT INTO ${NOTICES_TABLE} AS n (id, state, owner, until_ms) VALUES ($1, 'lease', $2, $4)
ON CONFLICT (id) DO UPDATE SET state = 'lease', owner = EXCLUDED.owner, until_ms = EXCLUDED.until_ms
  WHERE n.until_ms <= $3 OR (n.state = 'lease' AND n.owner = EXCLUDED.owner)
RETURNING n.state`;

const SETTLE = `
INSERT INTO ${NOTICES_TABLE} AS n (id, state, owner, until_ms) VALUES ($1, $2, '', $3)
ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, owner = '', until_ms = EXCLUDED.until_ms`;

const ADD_REFUSED = `
INSERT INTO ${REFUSALS_TABLE} AS r (occurrence, integration, refused, until_ms)
SELECT $1, name, n, $4 FROM unnest($2::text[], $3::bigint[]) AS t(name, n)
ON CONFLICT (occurrence, integration) DO UPDATE SET refused = r.refused + EXCLUDED.refused, until_ms = EXCLUDED.until_ms`;

/** Old rows are deleted at most this often, by the claim that comes after. */
const SWEEP_EVERY_MS = 3_600_000;
const STATEMENT_TIMEOUT_MS = 2000;

export function createPostgresNoticeStore(options: { url: string; now: Clock }): NoticeStore {
  const { now } = options;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: 2,
    connectionTimeoutMillis: STATEMENT_TIMEOUT_MS,
    allowExitOnIdle: true,
    onConnect: (client) => client.query(`SET statement_timeout = ${STATEMENT_TIMEOUT_MS}`).then(() => undefined),
  });
  // An idle connection whose server went away: the pool drops it, the next statement finds out.
  pool.on('error', () => undefined);
  let schema: Promise<unknown> | undefined;
  let sweptAt = 0;
  const ready = async (): Promise<void> => {
    schema ??= pool.query(SCHEMA).catch((err: unknown) => {
      schema = undefined;
      throw err;
    });
    await schema;
    const at = now();
    if (at - sweptAt < SWEEP_EVERY_MS) return;
    sweptAt = at;
    await pool.query(`DELETE FROM ${NOTICES_TABLE} WHERE until_ms < $1`, [at]);
    await pool.query(`DELETE FROM ${REFUSALS_TABLE} WHERE until_ms < $1`, [at]);
  };
  return {
    kind: 'postgres',
    async claim(id, owner, leaseMs) {
      await ready();
      const at = now();
      const taken = await pool.query(CLAIM, [id, owner, at, at + leaseMs]);
      if (taken.rowCount === 1) return 'claimed';
      const row = (await pool.query(`SELECT state FROM ${NOTICES_TABLE} WHERE id = $1`, [id])).rows[0] as { state: string } | undefined;
      return row && row.state !== 'lease' ? 'done' : 'held';
    },
    async settle(id, outcome) {
      await ready();
      await pool.query(SETTLE, [id, outcome, now() + KEEP_MS]);
    },
    async addRefused(occurrence, add) {
      if (add.size === 0) return;
      await ready();
      await pool.query(ADD_REFUSED, [occurrence, [...add.keys()], [...add.values()].map(String), now() + KEEP_MS]);
    },
    async refused(occurrence) {
      await ready();
      const rows = (await pool.query(`SELECT integration, refused FROM ${REFUSALS_TABLE} WHERE occurrence = $1`, [occurrence])).rows as Array<{ integration: string; refused: string }>;
      return new Map(rows.map((r) => [r.integration, Number(r.refused)]));
    },
    close: () => pool.end(),
  };
}
