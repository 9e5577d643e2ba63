// The payment flow of POST /api/payment. The steps, in order, each stopping at its code (named as in
// PAYMENT_CODES, codes.ts; what each code means is said once, in src/legacy-surface/legacy-surface.ts):
//   1. local checks, no v1 call          missingFields, invalidFields, passwordsDiffer
//   2. client_id exists                  GET /clients/{id}; 404: clientNotFound
//   3. service_id exists                 GET /services/{id}; 404: serviceNotFound
//      (steps 2 and 3: a reply that is not an object carrying the requested id is a fault)
//   4. discount valid                    GET /discounts?code=; discountInvalid
//   5. timezone known                    GET /timezones; unknown: the fallback, no code
//      (then, for an existing client whose claim keeps a ticket, the newest id of v1's payments list is
//      read, settle/ledger-read.ts: what settles the payment should its outcome be unknown; a fault there
//      only leaves it without a ticket; then the port may refuse before any write: the payment's claim
//      could not be kept)
//   6. new client (no client_id)         POST /clients; the mapping's `newClient.errors` rules, else
//                                        clientNotCreated; a fault: clientNotCreated too (no payment attempted).
//      Created, the client has no payment yet: every matching record of its list is this payment's, so
//      the claim is handed its ticket (newest id 0, and the client it created) with no read, before step 7.
//      A client an earlier run of the same claim created (`createdClient`) is not created again: the
//      payment is made for it, its list's newest id read as for an existing client, and a fault of that
//      read answers as a check's fault (no payment was made) rather than leave that payment unsettleable
//   7. the payment                       POST /payments; paymentAdded, or the mapping's `payment.refusals`
//                                        rules, else paymentFailed
// A fault of v1 (401/403/429/5xx, unreachable, timeout, a reply of the wrong shape) answers with the
// fault's HTTP status and the code of the step it stopped: paymentFailed ("no payment was made") at the
// checks, clientNotCreated at the new client, paymentFailed at the payment POST, the one step that
// could have charged. v1 is reached only through the injected ports. The payment POST is made at most
// once and is never retried; the flow never throws: whatever happens, the caller gets a legacy reply, with
// what the flow did to v1: whether it sent a POST (`wrote`), and what became of the one POST that charges
// (`charge`), which decides whether a keyless repeat may pay again.
import { plainText } from '../mapping/legacy-value.js';
import { asV1Record } from '../mapping/v1-reply.js';
import { GatewayError } from '../shared/errors.js';
import { CLIENT_ID_FIELD, PAYMENT_CODES, internalFaultReply, reply, type LegacyPaymentReply, type PaymentCode } from './contract.js';
import { checkLocally, present, type LegacyFields } from './local-checks.js';
import { fillMessage } from './message-template.js';
import { isFault, isServiceRefusal, matchRule, outcomeUnknown } from './outcome.js';
import type { PaymentMapping } from './payment-mapping.js';
import { LedgerUnreadable, newestLedgerId } from './settle/ledger-read.js';
import { ledgerList, type LedgerMark } from './settle/ledger-ticket.js';
import { newClientBody, paymentBody } from './v1-bodies.js';

export interface PaymentPorts {
  /** A v1 GET; resolves with the parsed 2xx body, rejects with a GatewayError. */
  get(path: string, query: Record<string, string>, cacheTtlMs: number): Promise<unknown>;
  /** A v1 POST, made once; resolves with the parsed 2xx body, rejects with a GatewayError. */
  post(path: string, body: Record<string, unknown>): Promise<unknown>;
  /** Asked once, before the flow's first POST: a reply refuses the payment there (the claim of this
   * payment could not be kept), and nothing is written to v1; undefined lets the flow go on. `mark`: what
   * settles the payment should its outcome be unknown (when `settles`). */
  beforeWrites?(mark?: LedgerMark): Promise<LegacyPaymentReply | undefined>;
  /** The payment's claim keeps a ticket: the flow reads v1's newest payment id before its first POST. */
  settles?: boolean;
  /** Told once the new client was created, before the payment's POST: the mark that settles the payment
   * from here (when `settles`). */
  clientCreated?(mark: LedgerMark): Promise<void>;
  /** The client an earlier run of this payment's claim created: paid for, never created again. */
  createdClient?: string;
}

/** What the flow did to v1's payments: nothing sent, a documented refusal, paid, or unknown (no answer,
 * a 500/502/504, a reply it could not read). */
export type Charge = 'none' | 'refused' | 'paid' | 'unknown';

export interface PaymentFlowResult {
  reply: LegacyPaymentReply;
  /** Whether a v1 POST (the new client or the payment) was sent, whatever it answered. */
  wrote: boolean;
  charge: Charge;
}

/** What the flow has written so far, kept by the run that writes it. */
interface Writes {
  wrote: boolean;
  charge: Charge;
}

type V1Record = Record<string, unknown>;

/** Ends the flow early with a legacy reply. */
class Stop extends Error {
  constructor(readonly reply: LegacyPaymentReply) {
    super('payment flow stopped');
  }
}

const asRecord = (v: unknown): V1Record => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as V1Record) : {});
const asList = (v: unknown): V1Record[] => {
  const data = asRecord(v).data;
  return Array.isArray(data) ? data.map(asRecord) : [];
};

function faultReply(err: GatewayError, mapping: PaymentMapping, mayHaveHappened: boolean): LegacyPaymentReply {
  const template = mayHaveHappened ? mapping.messages.outcomeUnknown : mapping.messages.upstreamFault;
  return reply(PAYMENT_CODES.paymentFailed, fillMessage(template, { reason: err.message }), err.status, err.headers as Record<string, string>);
}

/**
 * Code 5 with the fault's HTTP status: creating the new client hit a fault, and no payment was attempted.
 * A 401/403/429 is the service refusing the call before any work: nothing was created, and code 5 (not 8)
 * tells the integration which step failed without sending it to a payments list that cannot hold this
 * payment. Any other fault (a 5xx, a timeout, a dropped or refused connection, an unreadable reply) may
 * have created the client, so the message says to look it up before retrying: a retry that creates a
 * second client costs more than one lookup.
 */
function clientFaultReply(err: GatewayError, mapping: PaymentMapping): LegacyPaymentReply {
  const template = isServiceRefusal(err) ? mapping.messages.clientCreationRefused : mapping.messages.clientOutcomeUnknown;
  return reply(PAYMENT_CODES.clientNotCreated, fillMessage(template, { reason: err.message }), err.status, err.headers as Record<string, string>);
}

function asGatewayError(err: unknown): GatewayError {
  return err instanceof GatewayError ? err : new GatewayError('LGW_INTERNAL', 'unexpected failure in the payment flow', { cause: err });
}

/** What a check reads: one record by id, and the code and message when v1 has none. */
interface MustExist {
  resource: string;
  id: string;
  notFoundCode: PaymentCode;
  notFoundMessage: string;
}

/**
 * A v1 GET that must find its record: 404 answers `notFoundCode`; a fault, or a reply that is not an object
 * carrying the requested id, answers code 8 saying no payment was made (nothing was sent that could charge).
 */
async function mustExist(ports: PaymentPorts, check: MustExist, mapping: PaymentMapping): Promise<V1Record> {
  try {
    const body = await ports.get(`/${check.resource}/${check.id}`, {}, 0);
    return asV1Record(body, { idField: mapping.recordIdField, id: check.id });
  } catch (caught) {
    const err = asGatewayError(caught);
    if (err.code === 'LGW_UPSTREAM_ERROR' && err.status === 404) throw new Stop(reply(check.notFoundCode, check.notFoundMessage));
    if (isFault(err)) throw new Stop(faultReply(err, mapping, false));
    throw err;
  }
}

async function checkDiscount(ports: PaymentPorts, fields: LegacyFields, mapping: PaymentMapping): Promise<void> {
  const { discount, resources, messages } = mapping;
  const wanted = fields.discount!.trim().toLowerCase();
  let list: V1Record[];
  try {
    list = asList(await ports.get(`/${resources.discounts}`, { [discount.filter]: fields.discount!, offset: '0', limit: '100' }, 0));
  } catch (caught) {
    const err = asGatewayError(caught);
    if (isFault(err)) throw new Stop(faultReply(err, mapping, false));
    throw new Stop(reply(PAYMENT_CODES.discountInvalid, messages.discountInvalid));
  }
  // The gateway checks the code itself: a filter v1 ignores cannot make a wrong code valid.
  const found = list.find(
    (d) => plainText(d[discount.codeField]).toLowerCase() === wanted && discount.activeValues.includes(plainText(d[discount.statusField])),
  );
  if (!found) throw new Stop(reply(PAYMENT_CODES.discountInvalid, messages.discountInvalid));
  const onlyFor = found[discount.serviceField];
  if (onlyFor !== null && onlyFor !== undefined && plainText(onlyFor) !== (fields.service_id ?? '')) {
    throw new Stop(reply(PAYMENT_CODES.discountInvalid, messages.discountWrongService));
  }
}

/** The timezone to record: the caller's when v1 knows it, else the fallback (legacy rule). */
async function resolveTimezone(ports: PaymentPorts, fields: LegacyFields, mapping: PaymentMapping): Promise<string> {
  const { timezone, resources } = mapping;
  const given = (fields.timezone ?? '').trim();
  if (given === '') return timezone.fallback;
  try {
    for (let page = 0; page < 20; page++) {
      const body = asRecord(await ports.get(`/${resources.timezones}`, { offset: String(page * 1000), limit: '1000' }, timezone.cacheTtlMs));
      if (asList(body).some((tz) => tz[timezone.nameField] === given)) return given;
      if (body.has_more !== true) break;
    }
    return timezone.fallback;
  } catch (caught) {
    throw new Stop(faultReply(asGatewayError(caught), mapping, false));
  }
}

async function createClient(ports: PaymentPorts, fields: LegacyFields, mapping: PaymentMapping, timezone: string, writes: Writes): Promise<string> {
  try {
    const body = newClientBody(fields, mapping, timezone);
    writes.wrote = true;
    const created = asRecord(await ports.post(`/${mapping.resources.clients}`, body));
    const id = created[mapping.newClient.idField];
    if (typeof id !== 'number' && typeof id !== 'string') {
      throw new GatewayError('LGW_UPSTREAM_BAD_REPLY', 'the upstream created the client but sent no id');
    }
    return String(id);
  } catch (caught) {
    if (caught instanceof Stop) throw caught;
    const err = asGatewayError(caught);
    if (err.code === 'LGW_INTERNAL') throw err;
    if (isFault(err)) throw new Stop(clientFaultReply(err, mapping));
    const rule = matchRule(mapping.newClient.errors, err);
    throw new Stop(reply(rule?.code ?? PAYMENT_CODES.clientNotCreated, rule?.message ?? err.message));
  }
}

async function createPayment(
  ports: PaymentPorts,
  fields: LegacyFields,
  mapping: PaymentMapping,
  clientId: string,
  timezone: string,
  writes: Writes,
): Promise<LegacyPaymentReply> {
  let sent: unknown;
  try {
    const body = paymentBody(fields, mapping, clientId, timezone);
    // The one POST that charges: from here until v1 answers, whether it charged is unknown.
    writes.wrote = true;
    writes.charge = 'unknown';
    sent = await ports.post(`/${mapping.resources.payments}`, body);
    writes.charge = 'paid';
  } catch (caught) {
    if (caught instanceof GatewayError && !outcomeUnknown(caught)) writes.charge = 'refused';
    return paymentNotTakenReply(caught, mapping);
  }
  const id = asRecord(sent)[mapping.payment.idField];
  return reply(PAYMENT_CODES.paymentAdded, fillMessage(mapping.messages.created, { payment_id: typeof id === 'number' || typeof id === 'string' ? id : 'unknown' }));
}

/** The reply to a payment POST v1 did not take: the mapping's refusal, or the fault's code and status. */
function paymentNotTakenReply(caught: unknown, mapping: PaymentMapping): LegacyPaymentReply {
  const err = asGatewayError(caught);
  if (err.code === 'LGW_INTERNAL') throw err;
  if (isFault(err)) return faultReply(err, mapping, outcomeUnknown(err));
  const rule = matchRule(mapping.payment.refusals, err);
  return reply(rule?.code ?? PAYMENT_CODES.paymentFailed, rule?.message ?? err.message);
}

/** A reply after a new client was created: says so, so that a retry uses client_id instead of creating a duplicate. */
function noteNewClient(result: LegacyPaymentReply, newClientId: string | undefined, mapping: PaymentMapping): LegacyPaymentReply {
  if (newClientId === undefined || result.body.code === PAYMENT_CODES.paymentAdded) return result;
  const response = fillMessage(mapping.messages.clientCreatedButPaymentFailed, { message: result.body.response, client_id: newClientId });
  return { ...result, body: { ...result.body, response } };
}

/** The mark of v1's payments list before the payment is sent, when its claim keeps one; a fault leaves the
 * payment for an existing client without (its outcome, if unknown, then stays so), and stops the payment
 * for a client an earlier run created: its claim must keep naming that client. */
async function ledgerMark(ports: PaymentPorts, fields: LegacyFields, mapping: PaymentMapping, clientId: string, timezone: string): Promise<LedgerMark | undefined> {
  if (ports.settles !== true || mapping.settle === undefined) return undefined;
  const body = paymentBody(fields, mapping, clientId, timezone);
  const created = ports.createdClient === clientId ? { createdClient: clientId } : {};
  try {
    return { afterId: await newestLedgerId((path, query) => ports.get(path, query, 0), ledgerList(mapping.settle, body)), body, ...created };
  } catch (caught) {
    if (ports.createdClient === clientId) throw new Stop(faultReply(ledgerFault(caught), mapping, false));
    return undefined;
  }
}

/** Why v1's payments list could not be read, as the fault v1's: the read's own fault, or a reply of the wrong
 * shape (a 502, never the gateway's 500). */
function ledgerFault(err: unknown): GatewayError {
  if (err instanceof LedgerUnreadable) return err.cause instanceof GatewayError ? err.cause : new GatewayError('LGW_UPSTREAM_BAD_REPLY', err.message, { cause: err });
  return asGatewayError(err);
}

/** The mark of a client just created: it has no payment yet, so every record of its list counts (newest
 * id 0, nothing to read), and the claim names the client. */
async function tellClientCreated(ports: PaymentPorts, fields: LegacyFields, mapping: PaymentMapping, clientId: string, timezone: string): Promise<void> {
  if (ports.settles !== true || mapping.settle === undefined || ports.clientCreated === undefined) return;
  await ports.clientCreated({ afterId: 0, body: paymentBody(fields, mapping, clientId, timezone), createdClient: clientId });
}

export async function runPaymentFlow(fields: LegacyFields, mapping: PaymentMapping, ports: PaymentPorts): Promise<LegacyPaymentReply> {
  const local = checkLocally(fields, mapping);
  if (!local.ok) return reply(local.code, local.message);
  return (await runCheckedPaymentFlow(fields, mapping, ports)).reply;
}

/** The flow after the local checks, for a caller that has made them already (a claimed payment makes them
 * before it claims, so that a refusal takes no claim): they are not made twice. */
export async function runCheckedPaymentFlow(fields: LegacyFields, mapping: PaymentMapping, ports: PaymentPorts): Promise<PaymentFlowResult> {
  const writes: Writes = { wrote: false, charge: 'none' };
  const result = (reply: LegacyPaymentReply): PaymentFlowResult => ({ reply, ...writes });
  const { resources, messages } = mapping;
  const existingClient = present(fields, CLIENT_ID_FIELD);
  // A client an earlier run created is named in replies as the new client it is.
  let newClientId: string | undefined = existingClient ? undefined : ports.createdClient;
  try {
    if (existingClient) {
      const check = { resource: resources.clients, id: String(Number(fields.client_id)), notFoundCode: PAYMENT_CODES.clientNotFound, notFoundMessage: messages.clientNotFound };
      await mustExist(ports, check, mapping);
    }
    if (present(fields, 'service_id')) {
      const check = { resource: resources.services, id: String(Number(fields.service_id)), notFoundCode: PAYMENT_CODES.serviceNotFound, notFoundMessage: messages.serviceNotFound };
      await mustExist(ports, check, mapping);
    }
    if (present(fields, 'discount')) await checkDiscount(ports, fields, mapping);
    const timezone = await resolveTimezone(ports, fields, mapping);
    const knownClient = existingClient ? String(Number(fields.client_id)) : newClientId;
    const mark = knownClient === undefined ? undefined : await ledgerMark(ports, fields, mapping, knownClient, timezone);
    const refused = await ports.beforeWrites?.(mark);
    if (refused) return result(refused);
    let clientId = knownClient;
    if (clientId === undefined) {
      clientId = newClientId = await createClient(ports, fields, mapping, timezone, writes);
      await tellClientCreated(ports, fields, mapping, clientId, timezone);
    }
    return result(noteNewClient(await createPayment(ports, fields, mapping, clientId, timezone, writes), newClientId, mapping));
  } catch (caught) {
    if (caught instanceof Stop) return result(caught.reply);
    // A fault in the gateway itself: nothing more is sent, and the caller is told to check before retrying.
    return result({ ...noteNewClient(internalFaultReply(mapping), newClientId, mapping), internalError: caught });
  }
}
