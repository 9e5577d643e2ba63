// Fuzzing what v1 answers (fast-check), for v1-reply-fuzz.test.ts (a few inputs, a fixed seed) and
// v1-reply-fuzz.long.test.ts (the volume, a new seed each run): every mapped legacy call, and the payment,
// sent to a gateway whose fake v1 answers with random JSON: lists and records of every shape, values of every JSON type (objects
// with members named as Object.prototype's among them), envelopes with fields missing or of the wrong
// type, and text that is not JSON. Asserted for every input: the gateway answers (never a crash, never a
// 500 of its own: the fake never answers 500), in the legacy envelope; a success carries only strings and
// nulls as values; a reply v1 sent in the wrong shape is a 502, never a success; nothing is unhandled.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHardenedGateway, type HardenedGateway } from '../e2e/hardening-harness.js';
import { HOSTILE_OBJECTS, anyNumber, anyText } from '../unit/mapping/v1-arbitraries.js';

let upstream: http.Server;
let gateway: HardenedGateway;
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
/** The statuses the reads were answered with: the fuzz must reach successes and faults alike. */
const readStatuses = new Set<number>();

/** What the fake v1 answers to the calls of the current run: a JSON text (or not JSON), GET or POST. */
let answerGet = '{}';
let answerPost = '{}';

function fakeV1(req: IncomingMessage, res: ServerResponse): void {
  const text = req.method === 'POST' ? answerPost : answerGet;
  res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

// --- arbitraries ---------------------------------------------------------------------------------

/** The fields the shipped mappings read, and a few they do not. */
const FIELD = fc.constantFrom(
  'id', 'object', 'first_name', 'last_name', 'email', 'username', 'priority', 'cost', 'price', 'start_time', 'end_time', 'date',
  'status', 'code', 'service_id', 'name', 'group_num', 'timezone', 'pract_id', 'toString', 'valueOf', '__proto__', 'constructor',
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: anyText },
  { weight: 3, arbitrary: anyNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_OBJECTS) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
/** A v1 record as JSON text: its members in any order, `__proto__` an ordinary member as in JSON. */
const recordText = fc
  .array(fc.tuple(FIELD, value), { maxLength: 10 })
  .map((members) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`);
const listText = fc
  .record(
    {
      object: fc.constantFrom<unknown>('list', 'record', 1, null),
      total: fc.oneof(fc.nat({ max: 5000 }), value),
      limit: fc.oneof(fc.nat({ max: 1000 }), value),
      offset: fc.oneof(fc.nat({ max: 1000 }), value),
      has_more: fc.oneof(fc.boolean(), value),
      data: fc.oneof({ weight: 4, arbitrary: fc.array(recordText, { maxLength: 5 }).map((texts) => `[${texts.join(',')}]`) }, { weight: 1, arbitrary: value.map((v) => JSON.stringify(v) ?? 'null') }),
    },
    { requiredKeys: [] },
  )
  .map((members) =>
    `{${Object.entries(members)
      .map(([k, v]) => `${JSON.stringify(k)}:${k === 'data' ? (v as string) : (JSON.stringify(v) ?? 'null')}`)
      .join(',')}}`,
  );
/** A v1 answer: a list, a record, another JSON value, or text that is not JSON. */
const answer = fc.oneof(
  { weight: 5, arbitrary: listText },
  { weight: 4, arbitrary: recordText },
  { weight: 1, arbitrary: value.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.constantFrom('', 'not json', '{"data":[', '[1,2', '\u0000') },
);

const CALLS = [
  '/api/clients/0/5', '/api/client?id=1', '/api/client?email=a@example.com', '/api/client?username=ann', '/api/client?first_name=Ann&last_name=Lee',
  '/api/staffs/0/5', '/api/staff/1', '/api/meetourstaff/0/5', '/api/practitioners/0/5', '/api/practitioner/1', '/api/meetourteam/0/5',
  '/api/services/0/5', '/api/service/1', '/api/sessions/0/5', '/api/session/1',
];

const PAYMENTS: Array<Record<string, string>> = [
  { client_id: '1', revenue_amount: '45.50', send_email: '0' },
  { client_id: '1', revenue_amount: '45.50', send_email: '0', service_id: '2', discount: 'SWIM5', timezone: 'America/Chicago' },
  { first_name: 'Nia', last_name: 'Okafor', state: 'IL', country: 'US', status: 'active', revenue_amount: '30.00', send_email: '1', timezone: 'America/Chicago' },
];

/** Every value of a legacy success is a string or null, however deep (a record's values, the envelope's). */
function onlyStrings(value: unknown): boolean {
  if (value === null || typeof value === 'string') return true;
  if (Array.isArray(value)) return value.every(onlyStrings);
  if (typeof value === 'object') return Object.values(value).every(onlyStrings);
  return false;
}

async function send(path: string, body?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gateway.url}${path}`, body ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {});
  return { status: res.status, body: JSON.parse(await res.text()) as Record<string, unknown> };
}

/** How many inputs each property is tried with, and the seed (none: a new one each run, as fast-check picks). */
export interface V1ReplyFuzzRuns {
  reads: number;
  payments: number;
  seed?: number;
}

const seeded = (runs: { seed?: number }) => (runs.seed === undefined ? {} : { seed: runs.seed });

/** The fuzz, with its gateway and fake v1 started for the file that calls it. */
export function fuzzV1Replies(runs: V1ReplyFuzzRuns): void {
  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => fakeV1(req, res));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    // Cache off: every call reads what this run's v1 answers. The fake answers at once: the long timeout keeps
    // a busy machine from turning a reply into a 504, which this fuzz does not expect.
    gateway = await startHardenedGateway({ UPSTREAM_URL: url, UPSTREAM_API_KEY: 'fuzz-key', UPSTREAM_TIMEOUT_MS: '60000', CACHE_TTL_MS: '0', LOG_LEVEL: 'silent' });
  });
  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    await gateway?.close();
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  describe('fuzzing v1 replies', () => {
    it('every mapped read: a legacy success of strings, or a legacy-shaped 4xx/5xx other than 500', async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...CALLS), answer, async (call, text) => {
          answerGet = text;
          const reply = await send(call);
          readStatuses.add(reply.status);
          expect(reply.status, `${call} <- ${text}`).not.toBe(500);
          expect(Object.keys(reply.body).slice(0, 1), `${call} <- ${text}`).toEqual(['status']);
          if (reply.status === 200) {
            expect(reply.body.status).toBe('success');
            expect(onlyStrings(reply.body), `${call} <- ${text}`).toBe(true);
          } else {
            expect(reply.body.status).toBe('failure');
            expect([404, 502]).toContain(reply.status);
          }
        }),
        { numRuns: runs.reads, ...seeded(runs) },
      );
    });

    it('the payment: a legacy payment reply with its code, never a 500', async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...PAYMENTS), answer, answer, async (payment, getText, postText) => {
          answerGet = getText;
          answerPost = postText;
          const reply = await send('/api/payment', payment);
          const seen = `GET <- ${getText}; POST <- ${postText}`;
          expect(reply.status, seen).not.toBe(500);
          expect(Object.keys(reply.body), seen).toEqual(['status', 'code', 'response']);
          expect(reply.body.code, seen).toEqual(expect.any(Number));
          expect(typeof reply.body.response, seen).toBe('string');
        }),
        { numRuns: runs.payments, ...seeded(runs) },
      );
    });

    it('is still serving, with no unhandled rejection, having answered reads with successes and faults', async () => {
      expect([...readStatuses].sort()).toEqual([200, 404, 502]);
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      expect(rejections).toEqual([]);
    });
  });
}
