// Builds the v1 request bodies of the payment flow (new client, payment) from the legacy fields, as
// mappings/payment.yaml says. Pure. Unknown legacy fields never reach v1: only mapped fields are sent.
import type { LegacyFields } from './local-checks.js';
import type { PaymentMapping } from './payment-mapping.js';

type BodyField = PaymentMapping['payment']['fields'][number];

function typed(value: string, type: BodyField['type']): string | number {
  return type === 'string' ? value : Number(value);
}

/** Each mapped field that has a value; `overrides` replaces a legacy value (resolved timezone, new client id). */
export function mapFields(fields: LegacyFields, specs: readonly BodyField[], overrides: Readonly<Record<string, string>> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const spec of specs) {
    const value = overrides[spec.from] ?? fields[spec.from] ?? '';
    if (value !== '') body[spec.to] = typed(value, spec.type);
  }
  return body;
}

/** HH:MM -> HH:MM:SS, the v1 time spelling (v1's API reference, records). */
const withSeconds = (hhmm: string): string => `${hhmm}:00`;

export function newClientBody(fields: LegacyFields, mapping: PaymentMapping, timezone: string): Record<string, unknown> {
  const body = mapFields(fields, mapping.newClient.fields, { timezone });
  const { availability } = mapping.newClient;
  const slots = availability.days
    .filter((d) => (fields[d.from] ?? '') !== '')
    .map((d) => ({ day: d.day, start: withSeconds(fields[d.from]!), end: withSeconds(fields[d.to]!) }));
  if (slots.length > 0) body[availability.to] = slots;
  return body;
}

export function paymentBody(fields: LegacyFields, mapping: PaymentMapping, clientId: string, timezone: string): Record<string, unknown> {
  return mapFields(fields, mapping.payment.fields, { client_id: clientId, timezone });
}
