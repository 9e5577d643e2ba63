// The payment mapping the package ships (mappings/payment.yaml), read and checked as the gateway reads it,
// for the unit tests of the payment's pure parts.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { paymentMappingSchema, type PaymentMapping } from '../../src/payment/payment-mapping.js';

export async function shippedPaymentMapping(): Promise<PaymentMapping> {
  return paymentMappingSchema.parse(parse(await readFile(new URL('../../mappings/payment.yaml', import.meta.url), 'utf8')));
}
