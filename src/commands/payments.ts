// `legacy-gateway payments unknown --url <metrics url>`: the payments whose outcome is unknown, from a
// gateway's GET /payments/unknown on its metrics listener (METRICS_PORT): claim, when sent, age, amount,
// client, caller (the API key's fingerprint, and its integration), oldest first; never an Idempotency-Key,
// an API key or a card token (the gateway keeps none in clear). `--json` prints the reply as it came.
// `legacy-gateway payments settle CLAIM --paid ID | --not-paid --url ...`: an operator's decision, after
// looking at v1's payments list (POST /payments/settle; the gateway logs it at warn).
// Exit codes: 0 fine, 1 the gateway could not be reached or refused the decision, 2 a usage error.
import { SHOWN_CLAIM, type UnknownPaymentRow } from '../gateway/payments-admin.js';
import { processIo, runReporting, UsageError, type CommandIo } from './command-run.js';
import { listenerAddress, printable } from './usage.js';

export type PaymentsIo = Pick<CommandIo, 'out' | 'err' | 'fetch'>;

/** The metrics listener's `path`, from `http://host:port` or any URL on it (`.../metrics`, `.../usage`). */
function listenerUrl(given: string | undefined, path: string): URL {
  if (given === undefined) throw new UsageError('--url is required: the metrics listener, e.g. http://127.0.0.1:9464', 2);
  const url = listenerAddress(given);
  url.pathname = path;
  url.search = '';
  return url;
}

async function call(io: PaymentsIo, url: URL, init: RequestInit = {}): Promise<{ status: number; body: unknown; text: string }> {
  let reply: Response;
  try {
    reply = await io.fetch(url, { ...init, signal: AbortSignal.timeout(10_000), headers: { accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) } });
  } catch (err) {
    const inner = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new UsageError(`cannot reach ${url.href}: ${inner?.code ?? (inner?.message || (err as Error).message || 'error')}`, 1);
  }
  const text = await reply.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const hint = reply.status === 404 ? ' (is it the metrics listener, METRICS_PORT, of a gateway?)' : '';
    throw new UsageError(`${url.href}: HTTP ${reply.status}, not JSON${hint}`, 1);
  }
  return { status: reply.status, body, text };
}

const age = (seconds: number): string => (seconds >= 3600 ? `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m` : seconds >= 60 ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`);

export function unknownTable(rows: readonly UnknownPaymentRow[]): string {
  if (rows.length === 0) return 'no payment with an unknown outcome\n';
  const header = ['CLAIM', 'SENT', 'AGE', 'AMOUNT', 'CLIENT', 'CALLER', 'INTEGRATION', 'STATE'];
  const cells = rows.map((r) => [r.claim, r.sent, age(r.ageSeconds), r.amount, r.client, r.caller, r.integration ?? '-', r.state].map((c) => printable(String(c))));
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((r) => (r[c] as string).length)));
  const line = (row: string[]) => row.map((cell, c) => cell.padEnd(widths[c] as number)).join('  ').trimEnd();
  return `${[header, ...cells].map(line).join('\n')}\n`;
}

export interface PaymentsUnknownOptions {
  url?: string;
  json?: boolean;
}

export interface PaymentsSettleOptions {
  url?: string;
  paid?: string;
  notPaid?: boolean;
}

async function listUnknown(opts: PaymentsUnknownOptions, io: PaymentsIo): Promise<void> {
  const url = listenerUrl(opts.url, '/payments/unknown');
  const { status, body, text } = await call(io, url);
  const rows = (body as { payments?: unknown } | null)?.payments;
  if (status !== 200 || !Array.isArray(rows)) throw new UsageError(`${url.href}: HTTP ${status}: ${printable(String((body as { error?: unknown } | null)?.error ?? 'not a list of payments'))}`, 1);
  io.out(opts.json ? (text.endsWith('\n') ? text : `${text}\n`) : unknownTable(rows as UnknownPaymentRow[]));
}

async function settle(claim: string, opts: PaymentsSettleOptions, io: PaymentsIo): Promise<void> {
  if ((opts.paid === undefined) === (opts.notPaid !== true)) throw new UsageError('settle: give either --paid <payment id> or --not-paid', 2);
  if (opts.paid !== undefined && !/^[1-9]\d{0,15}$/.test(opts.paid)) throw new UsageError(`--paid: not a payment id: ${opts.paid}`, 2);
  if (!SHOWN_CLAIM.test(claim)) throw new UsageError(`not a claim (as payments unknown lists it): ${claim}`, 2);
  const url = listenerUrl(opts.url, '/payments/settle');
  const decision = opts.paid === undefined ? { claim, notPaid: true } : { claim, paid: Number(opts.paid) };
  const { status, body } = await call(io, url, { method: 'POST', body: JSON.stringify(decision) });
  if (status !== 200) throw new UsageError(`refused: HTTP ${status}: ${printable(String((body as { error?: unknown } | null)?.error ?? ''))}`, 1);
  io.out(opts.paid === undefined ? `${claim}: settled not paid (its next repeat pays)\n` : `${claim}: settled paid, payment id ${opts.paid}\n`);
}

export const runPaymentsUnknown = (opts: PaymentsUnknownOptions, io: PaymentsIo = processIo): Promise<void> => runReporting('payments', io, () => listUnknown(opts, io));

export const runPaymentsSettle = (claim: string, opts: PaymentsSettleOptions, io: PaymentsIo = processIo): Promise<void> => runReporting('payments', io, () => settle(claim, opts, io));
