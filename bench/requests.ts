// What the load generator sends. Every target but one sends a handful of API keys in rotation, as a
// gateway in front of a few integrations sees them; the cold team listing sends a new key per request.
// A payment carries a new Idempotency-Key per request, and its replies are checked (code 12, not replayed).
import type autocannon from 'autocannon';

type Request = autocannon.Request;

/** A realistic handful of API keys: the gateway's memory figure is taken with these. */
export const HANDFUL_OF_KEYS = ['bench-key-a', 'bench-key-b', 'bench-key-c', 'bench-key-d', 'bench-key-e'];

let rotation = 0;
const nextKey = (): string => HANDFUL_OF_KEYS[rotation++ % HANDFUL_OF_KEYS.length]!;

const withHeaders = (req: Request, headers: Record<string, string>): Request => ({ ...req, headers: { ...(req.headers ?? {}), ...headers } });

/** GET `urlPath`, the API keys of HANDFUL_OF_KEYS in turn. */
export function handfulOfKeys(urlPath: string): Request[] {
  return [{ method: 'GET', path: urlPath, setupRequest: (req: Request) => withHeaders(req, { 'x-api-key': nextKey() }) }];
}

let coldKey = 0;

/** GET `urlPath` with a new API key for every request: every call misses the cache and shares no upstream call. */
export function newKeyPerRequest(urlPath: string): Request[] {
  return [{ method: 'GET', path: urlPath, setupRequest: (req: Request) => withHeaders(req, { 'x-api-key': `bench-cold-${coldKey++}` }) }];
}

/** A payment for an existing client: one v1 GET (the client) and one v1 POST (the payment) per call. */
export const PAYMENT_BODY = 'client_id=1&revenue_amount=45.50&send_email=0';

/** Unique across every run of this bench process, so that a Redis shared by runs never replays one. */
const RUN = `${process.pid.toString(36)}-${Date.now().toString(36)}`;
let paymentSeq = 0;
export const nextIdempotencyKey = (): string => `bench-${RUN}-${paymentSeq++}`;

/**
 * Payments per run: a fixed count rather than a duration. Without Redis the gateway's Idempotency-Key store
 * takes at most 2,000 unexpired keys per API key and then refuses new ones (code 8, HTTP 503), so a gateway
 * process may take 5 x 2,000 keyed payments in a day: each run (a new process) stays under that.
 */
export const PAYMENTS_PER_RUN = { warmup: 500, measured: 8_000 };

export interface PaymentLoad {
  requests: Request[];
  /** Replies that were not a new payment (a legacy code other than 12, or a replayed reply). */
  wrongReplies(): number;
  amount: typeof PAYMENTS_PER_RUN;
}

export function payments(): PaymentLoad {
  let wrong = 0;
  const requests: Request[] = [
    {
      method: 'POST',
      path: '/api/payment',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: PAYMENT_BODY,
      setupRequest: (req: Request) => withHeaders(req, { 'x-api-key': nextKey(), 'idempotency-key': nextIdempotencyKey() }),
      onResponse: (status: number, body: string, _context: object, headers: Request['headers']) => {
        if (status < 200 || status > 299) return; // counted by autocannon as non-2xx
        // Raw header names, as the gateway cased them.
        const replayed = Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'idempotent-replayed');
        if (replayed || !/"code":12\b/.test(body)) wrong++;
      },
    },
  ];
  return { requests, wrongReplies: () => wrong, amount: PAYMENTS_PER_RUN };
}

/** One payment through a server: it must be a new payment (code 12), or the payment rows measure nothing. */
export async function checkPayment(server: { name: string; url: string }): Promise<void> {
  const res = await fetch(`${server.url}/api/payment`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': HANDFUL_OF_KEYS[0]!, 'idempotency-key': nextIdempotencyKey() },
    body: PAYMENT_BODY,
  });
  const text = await res.text();
  if (!res.ok || !/"code":12\b/.test(text)) throw new Error(`${server.name}: a payment answered ${res.status} ${text}`);
}
