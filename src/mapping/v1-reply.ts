// The v1 reply shapes the engine relies on (v1-api.md: list envelope, records), checked with zod,
// and the port through which the engine asks for v1 data. Pure: the port is implemented elsewhere.
import { z } from 'zod';
import { GatewayError } from '../shared/errors.js';
import type { V1Record } from './legacy-record.js';

/** One GET to v1: a path under /api/v1/ and its query. Resolves with the parsed JSON of a 2xx reply;
 * rejects with a GatewayError for anything else. */
export interface V1Call {
  /** e.g. `/clients` or `/clients/42`: relative to /api/v1. */
  path: string;
  query: Record<string, string>;
}
export type V1Get = (call: V1Call) => Promise<unknown>;

// A cheap structural check (no copy): list pages carry up to 1000 records and this runs per request.
const v1Record = z.custom<V1Record>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  'expected a JSON object',
);

const listEnvelope = z.object({
  total: z.number().int().min(0),
  has_more: z.boolean(),
  data: z.array(v1Record),
});

export type V1List = z.infer<typeof listEnvelope>;

function badReply(what: string, issues: z.core.$ZodIssue[]): GatewayError {
  const where = issues[0] ? ` (${issues[0].path.join('.') || 'body'}: ${issues[0].message})` : '';
  return new GatewayError('LGW_UPSTREAM_BAD_REPLY', `the upstream sent a ${what} the gateway does not understand${where}`);
}

export function asV1List(body: unknown): V1List {
  const parsed = listEnvelope.safeParse(body);
  if (!parsed.success) throw badReply('list', parsed.error.issues);
  return parsed.data;
}

export function asV1Record(body: unknown): V1Record {
  const parsed = v1Record.safeParse(body);
  if (!parsed.success) throw badReply('record', parsed.error.issues);
  return parsed.data;
}
