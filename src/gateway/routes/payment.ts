// Serves POST /api/payment: reads the body, applies the Idempotency-Key, runs the payment flow with this
// request's API key, and writes the legacy payment reply {"status","code","response"}.
// v1 GETs go through the shared transport (cache, retries); the payment and client POSTs go through the
// writer, once. The fields are never logged; the log line carries the code only.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { runPaymentFlow, type PaymentPorts } from '../../payment/flow.js';
import type { IdempotencyStore } from '../state/idempotency-store.js';
import { fill } from '../../payment/messages.js';
import { reply, type LegacyPaymentReply } from '../../payment/outcome.js';
import type { PaymentMapping } from '../../payment/payment-mapping.js';
import { API_KEY_PARAM, apiKeyOf } from '../edge/api-key.js';
import type { V1Transport, V1Writer } from '../upstream/v1-client.js';
import { writeJson } from './legacy-read.js';
import { readPaymentBody } from './payment-body.js';
import { contextOf, failureOutcome, noteUpstreamCall } from '../edge/request-context.js';
import { splitTarget } from '../../shared/request-target.js';

export interface PaymentRouteDeps {
  mapping: PaymentMapping;
  transport: V1Transport;
  writer: V1Writer;
  idempotency: IdempotencyStore;
  upstreamApiKey: string | undefined;
  logger: Logger;
  /** Keeps shutdown waiting until a payment in flight has answered. */
  holdUntilDone?: (work: Promise<unknown>) => void;
  /** Counts payments by legacy code (metrics). */
  onPaymentCode?: (code: number) => void;
}

/** Visible ASCII, as the Idempotency-Key header convention allows; long enough for a UUID and more. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function isPaymentCall(req: IncomingMessage): boolean {
  if (req.method !== 'POST') return false;
  const { path } = splitTarget(req.url);
  return path === '/api/payment' || path === '/api/payment/';
}

function send(res: ServerResponse, result: LegacyPaymentReply): void {
  for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
  writeJson(res, result.httpStatus, result.body);
}

export function paymentRoute(deps: PaymentRouteDeps) {
  const { mapping } = deps;

  async function handle(req: IncomingMessage & { id?: unknown }, res: ServerResponse): Promise<void> {
    const ctx = contextOf(req);
    ctx.legacyMethod = 'payment';
    const body = await readPaymentBody(req, mapping.bodyLimitBytes);
    if (!body.ok) {
      if (body.problem === 'too-large') {
        // Stop reading the rest of an oversized upload: answer, then close the connection.
        res.setHeader('connection', 'close');
        res.once('finish', () => req.socket.destroySoon());
        return send(res, reply(0, fill(mapping.messages.tooLarge, { limit: mapping.bodyLimitBytes }), 413));
      }
      if (body.problem === 'unsupported') return send(res, reply(0, mapping.messages.unsupportedBody, 415));
      return send(res, reply(0, fill(mapping.messages.invalid, { fields: 'body' })));
    }
    if (body.fileFields.length > 0 || body.invalidFields.length > 0) {
      const names = [...body.invalidFields, ...body.fileFields].join(', ');
      return send(res, reply(0, body.fileFields.length > 0 ? fill(mapping.messages.fileNotAccepted, { fields: names }) : fill(mapping.messages.invalid, { fields: names })));
    }

    // The recorder (RECORD_FILE) reads the fields from here when the reply is written; it redacts secrets.
    (req as { body?: unknown }).body = body.fields;
    const params = [...new URLSearchParams(splitTarget(req.url).search)];
    const apiKey = apiKeyOf(req.headers, params, deps.upstreamApiKey);
    const requestId = String(req.id);
    const fields = { ...body.fields };
    delete fields[API_KEY_PARAM];

    const note = async <T>(path: string, call: () => Promise<{ status: number; body: T }>): Promise<T> => {
      const started = performance.now();
      try {
        const out = await call();
        noteUpstreamCall(ctx, path, started, out.status);
        return out.body;
      } catch (err) {
        noteUpstreamCall(ctx, path, started, failureOutcome(err));
        throw err;
      }
    };
    const ports: PaymentPorts = {
      get: (path, query, cacheTtlMs) => note(path, () => deps.transport.getJson({ path, query, apiKey, requestId, cacheTtlMs })),
      post: (path, v1Body) => note(`POST ${path}`, () => deps.writer.postJson({ path, body: v1Body, apiKey, requestId })),
    };

    const header = req.headers['idempotency-key'];
    const idempotencyKey = Array.isArray(header) ? header[0] : header;
    let result: LegacyPaymentReply;
    if (idempotencyKey === undefined) {
      result = await runPaymentFlow(fields, mapping, ports);
    } else if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
      result = reply(0, fill(mapping.messages.invalid, { fields: 'Idempotency-Key' }), 400);
    } else {
      const outcome = await deps.idempotency.run(apiKey, idempotencyKey, deps.idempotency.fingerprint(fields), () => runPaymentFlow(fields, mapping, ports));
      if (outcome.kind === 'mismatch') {
        result = reply(0, mapping.messages.idempotencyMismatch, 409);
      } else {
        result = outcome.reply;
        if (outcome.kind === 'replayed') res.setHeader('idempotent-replayed', 'true');
      }
    }
    if (result.internalError !== undefined) {
      (res as ServerResponse & { err?: Error }).err = result.internalError instanceof Error ? result.internalError : new Error('payment flow fault');
    }
    deps.onPaymentCode?.(result.body.code);
    ctx.paymentCode = result.body.code;
    send(res, result);
  }

  return function servePayment(req: IncomingMessage, res: ServerResponse): void {
    const work = handle(req, res).catch((err: unknown) => {
      deps.logger.error({ err, reqId: (req as { id?: unknown }).id }, 'payment route fault');
      if (!res.headersSent) send(res, reply(8, fill(mapping.messages.outcomeUnknown, { reason: 'internal gateway error' }), 500));
    });
    deps.holdUntilDone?.(work);
  };
}
