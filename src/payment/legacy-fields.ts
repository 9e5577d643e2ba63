// The legacy fields of POST /api/payment the gateway reads, from the payment mapping: the payment's body
// fields, the new client's (its weekly availability included), and `password2`, which only the check of
// code 3 reads. Any other field is ignored: never sent to v1, named (never its value) in a debug line by
// the route. docs/legacy-api.md lists the same fields; a unit test keeps the two equal. Pure.
import { CHECK_ONLY_FIELDS } from './contract.js';
import type { PaymentMapping } from './payment-mapping.js';

/** Every legacy field the payment reads, once each: the payment's, then the new client's, then the checks'. */
export function paymentFieldNames(mapping: PaymentMapping): readonly string[] {
  const names = [
    ...mapping.payment.fields.map((f) => f.from),
    ...mapping.newClient.fields.map((f) => f.from),
    ...mapping.newClient.availability.days.flatMap((d) => [d.from, d.to]),
    ...CHECK_ONLY_FIELDS,
  ];
  return [...new Set(names)];
}

// Mappings are loaded once; so is each one's set of names.
const known = new WeakMap<PaymentMapping, ReadonlySet<string>>();

/** The names of the fields the payment does not read, in the body's order. */
export function unknownPaymentFields(fields: Readonly<Record<string, string>>, mapping: PaymentMapping): string[] {
  let names = known.get(mapping);
  if (!names) {
    names = new Set(paymentFieldNames(mapping));
    known.set(mapping, names);
  }
  const read = names;
  return Object.keys(fields).filter((name) => !read.has(name));
}
