// Answers one request under /api/v1 the way v1 does. Checks, in order: API key (401), account gate
// (403/503), rate limit (429), path (404 unknown_resource), key scope (403), verb (405 with Allow), then
// the call itself: index, list (400 on bad paging or filter), record (404 not_found) or create.
// It must never store, echo or log the API key, and never answer a held (tok_timeout) reply after the
// sandbox started closing.
import type { Request, Response } from 'express';
import { dateOf } from './calendar.js';
import { createClient } from './create-client.js';
import { createPayment } from './create-payment.js';
import { SandboxError, sendJson, type V1ErrorCode } from './errors.js';
import type { HungReplies } from './hung-replies.js';
import { readJsonObject } from './json-body.js';
import { keyMayUse, keyRole } from './keys.js';
import { parseListQuery, selectPage } from './list-query.js';
import type { RateLimiter } from './rate-limit.js';
import { fieldValue, RESOURCES, serializeRecord, type HttpVerb, type ResourceDef } from './resources.js';
import type { AccountGate, SandboxState } from './state.js';

export const V1_PREFIX = '/api/v1';

export interface V1Context {
  state: SandboxState;
  limiter: RateLimiter;
  now: () => number;
  hung: HungReplies;
  paymentHangMs: number;
}

const GATE_ERRORS: Readonly<Record<AccountGate, readonly [V1ErrorCode, string]>> = {
  account_unverified: ['account_unverified', 'the e-mail address of the account is not verified: verify it to use the API'],
  account_locked: ['account_locked', 'the subscription has lapsed: renew it to use the API'],
  plan_not_allowed: ['plan_not_allowed', 'the plan does not include the API: upgrade to the top-tier plan'],
  maintenance: ['maintenance', 'the service is down for maintenance: try again later'],
};

/** A record id in canonical decimal form (no sign, no leading zero), else undefined. */
function parseId(segment: string): number | undefined {
  if (!/^[1-9]\d*$/.test(segment)) return undefined;
  const id = Number(segment);
  return Number.isSafeInteger(id) ? id : undefined;
}

function requireVerb(method: string, allowed: readonly HttpVerb[]): HttpVerb {
  // HEAD is answered as GET (without a body), as HTTP servers do; it is not listed in Allow.
  const verb = method === 'HEAD' ? 'GET' : method;
  const match = allowed.find((v) => v === verb);
  if (match === undefined) {
    throw new SandboxError('method_not_allowed', `${method} is not supported here; use ${allowed.join(' or ')}`, {
      Allow: allowed.join(', '),
    });
  }
  return match;
}

function sendIndex(res: Response): void {
  const data = [...RESOURCES.values()].map((r) => ({
    object: 'resource',
    name: r.name,
    path: `${V1_PREFIX}/${r.name}`,
    methods: r.collectionVerbs,
  }));
  sendJson(res, 200, { object: 'list', data });
}

function sendList(res: Response, ctx: V1Context, resource: ResourceDef, search: string): void {
  const query = parseListQuery(search, resource);
  const { total, page } = selectPage(resource.records(ctx.state), query);
  sendJson(res, 200, {
    object: 'list',
    total,
    limit: query.limit,
    offset: query.offset,
    has_more: query.offset + page.length < total,
    data: page.map((r) => serializeRecord(resource, r)),
  });
}

function sendRecord(res: Response, ctx: V1Context, resource: ResourceDef, idSegment: string): void {
  const id = parseId(idSegment);
  const record = id === undefined ? undefined : resource.records(ctx.state).find((r) => fieldValue(r, 'id') === id);
  if (record === undefined) {
    throw new SandboxError('not_found', `no ${resource.objectName} with id ${idSegment}`);
  }
  sendJson(res, 200, serializeRecord(resource, record));
}

async function create(req: Request, res: Response, ctx: V1Context, resource: ResourceDef): Promise<void> {
  const body = await readJsonObject(req);
  const today = dateOf(ctx.now());
  if (resource.name === 'clients') {
    sendJson(res, 201, serializeRecord(resource, createClient(ctx.state, body, today)));
    return;
  }
  const { payment, delayReply } = createPayment(ctx.state, body, today);
  // tok_timeout: recorded already; the caller only learns of it if it waits long enough.
  if (delayReply && !(await ctx.hung.wait(ctx.paymentHangMs, res))) return;
  sendJson(res, 201, serializeRecord(resource, payment));
}

/** Handles a request whose path is /api/v1 or below; `rest` is the path after /api/v1. */
export async function handleV1(req: Request, res: Response, ctx: V1Context, rest: string, search: string): Promise<void> {
  const role = keyRole(req.get('x-api-key'));
  if (role === undefined) {
    throw new SandboxError('invalid_key', 'missing or unknown API key: send a valid key in the X-API-KEY header');
  }
  if (ctx.state.gate !== null) {
    const [code, message] = GATE_ERRORS[ctx.state.gate];
    throw new SandboxError(code, message);
  }
  const decision = ctx.limiter.take(`${role}\n${req.method}\n${req.originalUrl}`);
  if (!decision.allowed) {
    throw new SandboxError('rate_limited', 'hourly rate limit reached for this URL and key', {
      'Retry-After': String(decision.retryAfterSeconds),
    });
  }

  if (rest === '' || rest === '/') {
    requireVerb(req.method, ['GET']);
    sendIndex(res);
    return;
  }
  const segments = rest.replace(/\/$/, '').slice(1).split('/');
  const [name, idSegment] = segments;
  const resource = name === undefined ? undefined : RESOURCES.get(name);
  if (resource === undefined || segments.length > 2 || segments.some((s) => s === '')) {
    throw new SandboxError('unknown_resource', `${V1_PREFIX}${rest} is not a v1 resource`);
  }
  if (!keyMayUse(role, resource.name)) {
    throw new SandboxError('resource_not_allowed', `this API key may not use the ${resource.name} resource`);
  }
  if (idSegment !== undefined) {
    requireVerb(req.method, ['GET']);
    sendRecord(res, ctx, resource, idSegment);
    return;
  }
  const verb = requireVerb(req.method, resource.collectionVerbs);
  if (verb === 'GET') sendList(res, ctx, resource, search);
  else await create(req, res, ctx, resource);
}
