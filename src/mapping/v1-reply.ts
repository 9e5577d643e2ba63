// The v1 reply shapes the engine relies on (v1's API reference: list envelope, records), checked with zod,
// and the port through which the engine asks for v1 data. The payment flow checks its single-record
// reads with the same rule. Pure: the port is implemented elsewhere. A reply of the wrong shape is a
// fault (LGW_UPSTREAM_BAD_REPLY), never a success with empty fields or another record's.
import { z } from 'zod';
import { GatewayError } from '../shared/errors.js';
import type { HandOff } from '../shared/hand-off.js';
import type { V1Record } from './legacy-record.js';

/** One GET to v1: a path under /api/v1/ and its query. */
export interface V1Call {
  /** e.g. `/clients` or `/clients/42`: relative to /api/v1. */
  path: string;
  query: Record<string, string>;
}
/** Resolves with the parsed JSON of a 2xx reply, handed off (shared/hand-off.ts: the engine takes it
 * once); rejects with a GatewayError for anything else. */
export type V1Get = (call: V1Call) => Promise<HandOff<unknown>>;
/** A list page's legacy reply, translated from v1's bytes: v1's total, and the reply's bytes. */
export interface TranslatedPage {
  total: number;
  bytes: Buffer;
}

/** A page read as it comes: each piece of a 2xx reply's body in order (a byte order mark at its start
 * included), then its end: the translation, or undefined when it declined (the page is then given whole). */
export interface PageTranslating {
  write(piece: Buffer): void;
  end(): TranslatedPage | undefined;
}

/** How the engine would read a page as it comes. `id` tells two translations apart: callers share one v1
 * call only when they translate it alike. */
export interface PageTranslation {
  readonly id: string;
  open(): PageTranslating;
}

/** As V1Get, with the 2xx reply's bytes as they came (a byte order mark skipped), not decoded: the engine
 * reads them (decoded and parsed with parseV1Text when it must). Given a translation, the port may read the
 * page with it as it comes, and give its translation instead of the bytes (never when it declined). */
export type V1GetBytes = (call: V1Call, translation?: PageTranslation) => Promise<HandOff<Buffer | TranslatedPage>>;

/** v1's text parsed; text that is not JSON is a bad reply (502), never a success. */
export function parseV1Text(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError('LGW_UPSTREAM_BAD_REPLY', 'the upstream sent a reply that is not valid JSON');
  }
}

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

/** The list envelope checked by hand, with no copy: list pages carry up to 1000 records, a team listing up
 * to fifty pages, and zod would check each record with a call of its own. Its rule is listEnvelope's. */
function isListEnvelope(body: unknown): body is V1List {
  if (typeof body !== 'object' || body === null) return false;
  const { total, has_more: hasMore, data } = body as Record<string, unknown>;
  if (typeof total !== 'number' || !Number.isSafeInteger(total) || total < 0) return false;
  if (typeof hasMore !== 'boolean' || !Array.isArray(data)) return false;
  for (const record of data) if (typeof record !== 'object' || record === null || Array.isArray(record)) return false;
  return true;
}

export function asV1List(body: unknown): V1List {
  if (isListEnvelope(body)) return body;
  // Anything else is refused by zod, which says where it went wrong.
  const parsed = listEnvelope.safeParse(body);
  if (!parsed.success) throw badReply('list', parsed.error.issues);
  return parsed.data;
}

/** The record a single-record read asked for: the v1 field holding its id, and the id requested. */
export interface RequestedRecord {
  idField: string;
  id: string;
}

const WHOLE_NUMBER_TEXT = /^\d+$/;

/** An id as the text of a whole number (`42`, `"42"` and `"042"` are all `42`); undefined for anything else. */
function wholeNumberText(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : undefined;
  if (typeof value === 'string' && WHOLE_NUMBER_TEXT.test(value)) return value.replace(/^0+(?=\d)/, '');
  return undefined;
}

/** Whether a record's id is the one requested: as whole numbers when the request is one, else as the same text. */
export function isRequestedId(actual: unknown, requested: string): boolean {
  const wanted = wholeNumberText(requested);
  if (wanted !== undefined) return wholeNumberText(actual) === wanted;
  return typeof actual === 'string' && actual === requested;
}

/** One v1 record, which must be the one asked for: a JSON object whose id field holds the requested id. */
export function asV1Record(body: unknown, requested: RequestedRecord): V1Record {
  const parsed = v1Record.safeParse(body);
  if (!parsed.success) throw badReply('record', parsed.error.issues);
  // The requested id is the caller's own (a checked whole number); v1's value is never echoed.
  if (!isRequestedId(parsed.data[requested.idField], requested.id)) {
    throw new GatewayError(
      'LGW_UPSTREAM_BAD_REPLY',
      `the upstream sent a record the gateway does not understand (${requested.idField}: not the requested id ${requested.id})`,
    );
  }
  return parsed.data;
}
