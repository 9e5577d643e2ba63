// The legacy payment form's fields, gathered from payment.yaml (the new client's and the payment's body field
// lists, the availability days) and the payment contract's rules (which are required, which are checked),
// each with a description saying where its value goes. Pure; it adds no field the mapping or the contract lacks.
import { NEW_CLIENT_DATE_FIELDS, REQUIRED_ALWAYS, REQUIRED_FOR_NEW_CLIENT, WHOLE_NUMBER_FIELDS } from '../../payment/contract.js';
import type { PaymentMapping } from '../../payment/payment-mapping.js';

export interface PaymentFormField {
  name: string;
  description: string;
  /** One of a new client's availability times. */
  availability: boolean;
}

/** The confirmation the contract compares with `password` (code 3); it is never sent to v1. */
const PASSWORD_CONFIRMATION = 'password2';

const TYPE_TEXT = { string: 'text', integer: 'a JSON integer', number: 'a JSON number' } as const;

function ruleText(name: string, mapping: PaymentMapping): string[] {
  const rules: string[] = [];
  if (REQUIRED_ALWAYS.includes(name)) rules.push('Required.');
  if (REQUIRED_FOR_NEW_CLIENT.includes(name)) rules.push('Required when no `client_id` is given.');
  if (name === 'revenue_amount') rules.push('A plain decimal above zero: digits, optionally a point and one or two decimals (not "1,000.00", "$5" or "5.").');
  if (name === 'send_email') rules.push('0 = no, 1 = yes.');
  if (WHOLE_NUMBER_FIELDS.includes(name)) rules.push('A whole number when given.');
  if (NEW_CLIENT_DATE_FIELDS.includes(name)) rules.push('New client: YYYY-MM-DD, a real calendar date, when given.');
  if (name === 'status') rules.push(`New client: one of ${mapping.clientStatuses.join(', ')}.`);
  if (name === 'client_id') rules.push('An existing client; without it, a new client is created from the new-client fields.');
  if (name === 'timezone') rules.push(`Checked against v1's time zones; empty or unknown becomes ${mapping.timezone.fallback}.`);
  return rules;
}

export function paymentFormFields(mapping: PaymentMapping): PaymentFormField[] {
  const targets = new Map<string, string[]>();
  const availability = new Set<string>();
  const add = (name: string, target: string) => targets.set(name, [...(targets.get(name) ?? []), target]);
  for (const f of mapping.payment.fields) add(f.from, `the payment's \`${f.to}\` (${TYPE_TEXT[f.type]})`);
  for (const f of mapping.newClient.fields) add(f.from, `the new client's \`${f.to}\` (${TYPE_TEXT[f.type]})`);
  for (const day of mapping.newClient.availability.days) {
    add(day.from, `the start of the new client's ${day.day} \`${mapping.newClient.availability.to}\` (HH:MM, sent as HH:MM:SS)`);
    add(day.to, `the end of the new client's ${day.day} \`${mapping.newClient.availability.to}\` (HH:MM after the start; both times or neither)`);
    availability.add(day.from).add(day.to);
  }
  const fields = [...targets].map(([name, to]): PaymentFormField => ({
    name,
    availability: availability.has(name),
    description: [...ruleText(name, mapping), `Sent to v1 as ${to.join(' and ')}; omitted when empty.`].join(' '),
  }));
  fields.push({
    name: PASSWORD_CONFIRMATION,
    availability: false,
    description: 'The confirmation of `password`: when `password` is given and this differs, code 3. Never sent to v1.',
  });
  return fields;
}
