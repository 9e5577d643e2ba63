// The payment's part of the guide (POST /api/payment), from mappings/payment.yaml: the v1 requests the
// gateway made in order, every legacy field to its v1 body field (the new client's and the payment's), v1's
// answers to the legacy codes 0 to 12, the advice to send an Idempotency-Key, and a pair of example calls
// whose v1 body is built by the gateway's own body builder from the legacy example's fields. Pure.
import { paymentCodeEntries } from '../legacy-surface/legacy-surface.js';
import { CLIENT_ID_FIELD, PAYMENT_CODES, REQUIRED_ALWAYS, REQUIRED_FOR_NEW_CLIENT } from '../payment/contract.js';
import type { ErrorRule, PaymentMapping } from '../payment/payment-mapping.js';
import { paymentBody } from '../payment/v1-bodies.js';
import type { MethodUse } from './call-shapes.js';
import { code, joined, type Block, type Inline, type TableRow, type Text } from './document.js';
import { legacyPost, v1Post } from './example-calls.js';
import { V1_PATH_PREFIX } from './v1-conventions.js';

type BodyField = PaymentMapping['payment']['fields'][number];

const v1 = (path: string): string => `${V1_PATH_PREFIX}${path}`;
const codes = (names: readonly string[]): Inline[] => joined(names.map((n) => code(n)));
const codeName = (n: number): string => paymentCodeEntries().find((e) => e.code === n)?.name ?? String(n);

function steps(p: PaymentMapping): Text[] {
  const { resources, discount, timezone } = p;
  return [
    ['Checked without v1: ', ...codes(REQUIRED_ALWAYS), ' always, and without ', code(CLIENT_ID_FIELD), ' also ', ...codes(REQUIRED_FOR_NEW_CLIENT), ` (missing: code ${PAYMENT_CODES.missingFields}); the formats (code ${PAYMENT_CODES.invalidFields}); `, code('password2'), ` equal to `, code('password'), ` when given (code ${PAYMENT_CODES.passwordsDiffer}; `, code('password2'), ' is never sent).'],
    [code(CLIENT_ID_FIELD), ' given: ', code(`GET ${v1(`/${resources.clients}/{${CLIENT_ID_FIELD}}`)}`), `; 404: code ${PAYMENT_CODES.clientNotFound}.`],
    [code('service_id'), ' given: ', code(`GET ${v1(`/${resources.services}/{service_id}`)}`), `; 404: code ${PAYMENT_CODES.serviceNotFound}.`],
    [code('discount'), ' given: ', code(`GET ${v1(`/${resources.discounts}?${discount.filter}={discount}`)}`), '; it is valid when a record\'s ', code(discount.codeField), ' equals it (case ignored), its ', code(discount.statusField), ' is ', ...joined(discount.activeValues.map((v) => code(v)), ' or '), ', and its ', code(discount.serviceField), ` is empty or the payment's `, code('service_id'), `; otherwise code ${PAYMENT_CODES.discountInvalid}.`],
    [code('timezone'), ': kept when a record of ', code(`GET ${v1(`/${resources.timezones}`)}`), ' (every page) has it as its ', code(timezone.nameField), '; empty or unknown: ', code(timezone.fallback), '.'],
    ['Without ', code(CLIENT_ID_FIELD), ': ', code(`POST ${v1(`/${resources.clients}`)}`), ' with the new client\'s body (below); the ', code(p.newClient.idField), ' of its reply is the payment\'s ', code(CLIENT_ID_FIELD), '.'],
    [code(`POST ${v1(`/${resources.payments}`)}`), ' with the payment\'s body (below), once, never retried: 201 is code ', `${PAYMENT_CODES.paymentAdded}`, ', ', code(p.messages.created), ' with the ', code(p.payment.idField), ' of its reply.'],
  ];
}

const SENT_AS: Record<BodyField['type'], string> = {
  string: 'a string, as given',
  integer: 'a JSON number (whole)',
  number: 'a JSON number',
};

function bodyRows(p: PaymentMapping): TableRow[] {
  const newClient = `POST ${v1(`/${p.resources.clients}`)}`;
  const payment = `POST ${v1(`/${p.resources.payments}`)}`;
  const row = (body: string, f: BodyField): TableRow => {
    const note: Inline[] = [SENT_AS[f.type]];
    if (f.from === CLIENT_ID_FIELD && body === payment) note.push(' (the new client\'s id when none was given)');
    if (f.from === 'timezone') note.push(' (as resolved above)');
    return { cells: [[code(f.from)], [code(body)], [code(f.to)], note] };
  };
  const { availability } = p.newClient;
  const days = availability.days.map((d): TableRow => ({
    cells: [[code(d.from), ', ', code(d.to)], [code(newClient)], [code(`${availability.to}[]`)], [code(`{"day":"${d.day}","start":"HH:MM:00","end":"HH:MM:00"}`), ' when the day is given']],
  }));
  return [...p.newClient.fields.map((f) => row(newClient, f)), ...days, ...p.payment.fields.map((f) => row(payment, f))];
}

function ruleWords(rule: ErrorRule): Inline[] {
  const parts: Inline[][] = [];
  if (rule.status !== undefined) parts.push([`HTTP ${rule.status}`]);
  if (rule.upstreamCode !== undefined) parts.push(['error code ', code(rule.upstreamCode)]);
  if (rule.messageMatches !== undefined) parts.push(['a message matching ', code(`/${rule.messageMatches}/i`)]);
  if (parts.length === 0) return ['any other refusal'];
  return parts.flatMap((p, i) => (i === 0 ? p : [', ', ...p]));
}

function errorRows(p: PaymentMapping, received: ReadonlyMap<number, number>): TableRow[] {
  const rows = (step: string, rules: readonly ErrorRule[]): TableRow[] =>
    rules.map((r) => ({ cells: [[code(step)], ruleWords(r), [`${r.code} (${codeName(r.code)})`]], ...(received.has(r.code) ? { highlight: true } : {}) }));
  return [...rows(`POST ${v1(`/${p.resources.clients}`)}`, p.newClient.errors), ...rows(`POST ${v1(`/${p.resources.payments}`)}`, p.payment.refusals)];
}

/** The example payment: the fields every payment needs, for an existing client, each a value of its type. */
function exampleFields(p: PaymentMapping): Array<[string, string]> {
  const typeOf = (name: string): BodyField['type'] => p.payment.fields.find((f) => f.from === name)?.type ?? 'string';
  const value = (name: string): string => ({ integer: '1', number: '10.00', string: 'example' })[typeOf(name)];
  return [CLIENT_ID_FIELD, ...REQUIRED_ALWAYS].map((name): [string, string] => [name, name === 'send_email' ? '0' : value(name)]);
}

function example(p: PaymentMapping): Block {
  const fields = exampleFields(p);
  const body = paymentBody(Object.fromEntries(fields), p, fields[0]![1], p.timezone.fallback);
  const v1Lines = v1Post(`/${p.resources.payments}`, body);
  v1Lines[0] = v1Lines[0]!.replace(" -H 'Content-Type", ' -H "Idempotency-Key: $PAYMENT_KEY" -H \'Content-Type');
  return { kind: 'code', language: 'sh', lines: ['# legacy', ...legacyPost('/api/payment', fields), '# v1', ...v1Lines] };
}

/** For an integration: how often it paid and, when the report counts them, the codes its payments got. */
function useCallout(use: MethodUse, received: ReadonlyMap<number, number>): Block {
  const text = `This integration called it ${use.calls} time${use.calls === 1 ? '' : 's'}`;
  if (received.size === 0) return { kind: 'callout', text: [`${text}.`] };
  const codes = [...received].map(([n, calls]) => `${n} ${codeName(n)} (${calls})`).join(', ');
  return { kind: 'callout', text: [`${text}; the gateway answered with the codes ${codes}. Their rows are highlighted.`] };
}

/** `received`: for an integration, the legacy codes its payments were answered with, and how often. */
export function paymentSection(p: PaymentMapping, use: MethodUse | undefined, received: ReadonlyMap<number, number> = new Map()): Block[] {
  const blocks: Block[] = [
    { kind: 'heading', level: 2, text: [code('POST /api/payment')], anchor: 'payment' },
    { kind: 'paragraph', text: [`${p.description}.`] },
  ];
  if (use) blocks.push(useCallout(use, received));
  blocks.push(
    { kind: 'heading', level: 3, text: ['The v1 requests, in order'] },
    { kind: 'list', items: steps(p) },
    { kind: 'heading', level: 3, text: ['Legacy fields to v1 bodies'] },
    { kind: 'paragraph', text: ['A field left empty is not sent. Legacy fields not listed here are never sent to v1.'] },
    { kind: 'table', header: ['Legacy field', 'v1 request', 'v1 field', 'Sent as'], rows: bodyRows(p) },
    { kind: 'heading', level: 3, text: ['v1 errors to legacy codes'] },
    { kind: 'table', header: ['v1 request', 'v1 answer (the first rule that matches)', 'Legacy code'], rows: errorRows(p, received) },
    {
      kind: 'list',
      items: [
        [`A fault (401, 403, 429, 5xx, no answer) kept its HTTP status: code ${PAYMENT_CODES.paymentFailed} at a check or at the payment, code ${PAYMENT_CODES.clientNotCreated} at the new client.`],
        ['A fault at the payment POST leaves its outcome unknown: read ', code(`GET ${v1(`/${p.resources.payments}`)}`), ' before paying again.'],
      ],
    },
    { kind: 'table', header: ['Code', 'Name', 'When'], rows: paymentCodeEntries().map((e) => ({ cells: [[String(e.code)], [code(e.name)], [e.meaning]], ...(received.has(e.code) ? { highlight: true } : {}) })) },
    { kind: 'heading', level: 3, text: ['Send an Idempotency-Key'] },
    {
      kind: 'paragraph',
      text: [
        'Send an ', code('Idempotency-Key'), ' header with every payment: a value of your own (a UUID), new for each payment and the same when you retry it. ',
        'Through the gateway, a repeat with the same key gets the first reply back instead of paying again (the same key with other fields answers 409). ',
        "v1's reference does not say whether it honours the header: send it to v1 too, and after a timeout or a 5xx read ", code(`GET ${v1(`/${p.resources.payments}`)}`), ' before paying again: never retry a payment blind.',
      ],
    },
    { kind: 'heading', level: 3, text: ['Example'] },
    example(p),
  );
  return blocks;
}
