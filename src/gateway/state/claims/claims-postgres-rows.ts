// The PostgreSQL side of the payment claims (claims-postgres.ts): the table, the statements that claim,
// read, move on and sweep a claim, each one atomic, and the row form of a claim and of its stored reply.
// Pure: no connection here. The table's name never comes from a setting, so the statements are constants.
import type { ClaimRecord, ClaimResult, LedgerTicket, StoredPaymentReply } from '../../../payment/claims/claim-store.js';

export const CLAIMS_TABLE = 'legacy_gateway_payment_claims';
/** How many expired rows one sweep deletes at most. */
export const SWEEP_BATCH = 5000;

export const SCHEMA = `
BEGIN;
-- Replicas starting at once would race on the catalog (IF NOT EXISTS is not atomic): one at a time.
SELECT pg_advisory_xact_lock(hashtext('${CLAIMS_TABLE}'));
CREATE TABLE IF NOT EXISTS ${CLAIMS_TABLE} (
  id text PRIMARY KEY,
  caller text NOT NULL,
  fingerprint text NOT NULL,
  owner text NOT NULL,
  phase text NOT NULL CHECK (phase IN ('claimed', 'sent', 'answered')),
  lease_until bigint NOT NULL,
  replays boolean NOT NULL,
  reply jsonb,
  expires_at bigint NOT NULL,
  ticket jsonb,
  settle_by text,
  settle_until bigint
);
CREATE INDEX IF NOT EXISTS ${CLAIMS_TABLE}_expires_at ON ${CLAIMS_TABLE} (expires_at);
CREATE INDEX IF NOT EXISTS ${CLAIMS_TABLE}_ticket ON ${CLAIMS_TABLE} (phase) WHERE ticket IS NOT NULL;
COMMIT;`;

/** A table made by an earlier version gains the settlement's columns (its ticket, its settle lease). */
export const SETTLE_COLUMNS = `
BEGIN;
SELECT pg_advisory_xact_lock(hashtext('${CLAIMS_TABLE}'));
ALTER TABLE ${CLAIMS_TABLE} ADD COLUMN IF NOT EXISTS ticket jsonb, ADD COLUMN IF NOT EXISTS settle_by text, ADD COLUMN IF NOT EXISTS settle_until bigint;
CREATE INDEX IF NOT EXISTS ${CLAIMS_TABLE}_ticket ON ${CLAIMS_TABLE} (phase) WHERE ticket IS NOT NULL;
COMMIT;`;

/** Whether the table has the settlement's columns. */
export const HAS_SETTLE_COLUMNS = `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = '${CLAIMS_TABLE}' AND column_name IN ('ticket', 'settle_by', 'settle_until')`;

const COLUMNS = 'caller, fingerprint, owner, phase, lease_until, replays, reply, ticket';

/** Taken when no row is there, or the one there expired or is open (isOpen, in SQL); a row taken answers
 * the fingerprint and ticket of the live one it replaced (the statement's snapshot: the row as it stood
 * before this upsert). */
export const CLAIM = `
WITH replaced AS (SELECT fingerprint, ticket FROM ${CLAIMS_TABLE} WHERE id = $1 AND expires_at > $10::bigint)
INSERT INTO ${CLAIMS_TABLE} AS c (id, caller, fingerprint, owner, phase, lease_until, replays, reply, expires_at, ticket)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $11::jsonb)
ON CONFLICT (id) DO UPDATE SET
  caller = EXCLUDED.caller, fingerprint = EXCLUDED.fingerprint, owner = EXCLUDED.owner, phase = EXCLUDED.phase,
  lease_until = EXCLUDED.lease_until, replays = EXCLUDED.replays, reply = EXCLUDED.reply, expires_at = EXCLUDED.expires_at,
  ticket = EXCLUDED.ticket, settle_by = NULL, settle_until = NULL
WHERE c.expires_at <= $10::bigint
   OR (c.phase = 'answered' AND NOT c.replays)
   OR (c.phase = 'claimed' AND c.lease_until <= $10::bigint)
RETURNING c.id, (SELECT fingerprint FROM replaced) AS replaced_fingerprint, (SELECT ticket FROM replaced) AS replaced_ticket`;

export const READ = `SELECT ${COLUMNS} FROM ${CLAIMS_TABLE} WHERE id = $1 AND expires_at > $2::bigint`;

/** The claims whose outcome is unknown at $1 (isUnknown, in SQL), oldest sent first, at most $2. */
export const LIST_UNKNOWN = `
SELECT id, ${COLUMNS} FROM ${CLAIMS_TABLE}
WHERE ticket IS NOT NULL AND expires_at > $1::bigint
  AND ((phase = 'answered' AND replays AND ticket->>'unknown' = 'true') OR (phase = 'sent' AND lease_until <= $1::bigint))
ORDER BY (ticket->>'sentAt')::bigint LIMIT $2`;

export const UPDATE = `
UPDATE ${CLAIMS_TABLE} SET
  caller = $3, fingerprint = $4, phase = $5, lease_until = $6, replays = $7, reply = $8::jsonb,
  expires_at = COALESCE($9::bigint, expires_at), ticket = $11::jsonb
WHERE id = $1 AND owner = $2 AND expires_at > $10::bigint`;

// The outer condition is checked again on a row a claim renewed meanwhile (the subquery's is not): a row
// taken over while the sweep ran is never deleted. SKIP LOCKED: the sweep never waits on a claim.
export const SWEEP = `
DELETE FROM ${CLAIMS_TABLE} WHERE expires_at <= $1::bigint AND id IN (
  SELECT id FROM ${CLAIMS_TABLE} WHERE expires_at <= $1::bigint LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`;

// A settle lease: taken when free, run out, or held by the same holder, on a live claim.
export const SETTLE_LEASE = `
UPDATE ${CLAIMS_TABLE} SET settle_by = $2, settle_until = $3::bigint + $4::bigint
WHERE id = $1 AND expires_at > $3::bigint AND (settle_until IS NULL OR settle_until <= $3::bigint OR settle_by = $2)`;

export interface Row {
  caller: string;
  fingerprint: string;
  owner: string;
  phase: ClaimRecord['phase'];
  lease_until: string;
  replays: boolean;
  reply: StoredForm | null;
  ticket: LedgerTicket | null;
}

/** A reply as the table holds it. jsonb sorts an object's keys, so the headers are kept as pairs and the
 * body is rebuilt in the contract's order: a replay is sent byte for byte as the first reply was. */
interface StoredForm {
  httpStatus: number;
  headers: Array<[string, string]>;
  body: StoredPaymentReply['body'];
}

const storedForm = (reply: StoredPaymentReply | undefined): string | null =>
  reply === undefined ? null : JSON.stringify({ httpStatus: reply.httpStatus, headers: Object.entries(reply.headers), body: reply.body } satisfies StoredForm);

export function recordOf(row: Row): ClaimRecord {
  const record: ClaimRecord = {
    phase: row.phase,
    fingerprint: row.fingerprint,
    caller: row.caller,
    owner: row.owner,
    leaseUntil: Number(row.lease_until),
    replays: row.replays,
  };
  if (row.ticket !== null && row.ticket !== undefined) record.ticket = row.ticket;
  if (row.reply !== null) {
    const { httpStatus, headers, body } = row.reply;
    record.reply = { httpStatus, headers: Object.fromEntries(headers), body: { status: body.status, code: body.code, response: body.response } };
  }
  return record;
}

/** What CLAIM answers when it took the row: what the live row it replaced held, if one was there. */
export interface ReplacedRow {
  replaced_fingerprint: string | null;
  replaced_ticket: LedgerTicket | null;
}

export function tookPlaceOf(row: ReplacedRow | undefined): ClaimResult {
  if (row === undefined || row.replaced_fingerprint === null) return { taken: true };
  return { taken: true, replaced: { fingerprint: row.replaced_fingerprint, ...(row.replaced_ticket === null ? {} : { ticket: row.replaced_ticket }) } };
}

/** phase, lease_until, replays and reply: $5 to $8 in both CLAIM and UPDATE. */
export const fields = (r: ClaimRecord) => [r.phase, wholeMs('leaseUntil', r.leaseUntil), r.replays, storedForm(r.reply)];

/** The ticket: $11 in both CLAIM and UPDATE. */
export const ticketOf = (r: ClaimRecord): string | null => (r.ticket === undefined ? null : JSON.stringify(r.ticket));

/** A whole number of ms: a bigint column takes nothing else, and a caller's mistake is not an outage. */
export function wholeMs(name: string, value: number): number {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${name} must be a whole number of milliseconds`);
  return value;
}
