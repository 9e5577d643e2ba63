// The payment form as the OpenAPI document describes it agrees with the checks the gateway makes before any v1
// call: a form the document accepts passes the local checks, and one it refuses answers code 1 or 0 (the
// password confirmation, code 3, compares two values and is described in words, not in the schema).
import { beforeAll, expect, it } from 'vitest';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { loadMappingDirectory } from '../../src/gateway/loaders/mapping-files.js';
import { buildOpenApiDocument } from '../../src/legacy-surface/openapi/document.js';
import { checkLocally } from '../../src/payment/local-checks.js';
import type { PaymentMapping } from '../../src/payment/payment-mapping.js';
import { openApiChecker, type OpenApiChecker } from '../helpers/openapi-check.js';

let payment: PaymentMapping;
let checker: OpenApiChecker;

beforeAll(async () => {
  const { reads, payment: loaded } = await loadMappingDirectory(SHIPPED_MAPPINGS_DIR);
  payment = loaded!;
  checker = openApiChecker(buildOpenApiDocument({ reads, payment, version: '0.0.0' }));
});

const existing = { client_id: '1', revenue_amount: '45.50', send_email: '0' };
const newClient = { first_name: 'A', last_name: 'B', state: 'IL', country: 'US', status: 'active', revenue_amount: '5', send_email: '1' };

const forms: Array<Record<string, string>> = [
  existing,
  { ...existing, service_id: '4', discount: 'SWIM5', token: 'tok_x', revenue_note: 'n', timezone: 'Nowhere/Else', unknown_field: 'ignored' },
  newClient,
  { ...newClient, client_id: '', inactive_date: '2024-02-29', mAvailf: '09:00', mAvailt: '17:00', password: 'p', password2: 'p' },
  { revenue_amount: '45.50' },
  { ...existing, send_email: '' },
  { ...existing, revenue_amount: '1,000.00' },
  { ...existing, revenue_amount: '$5' },
  { ...existing, revenue_amount: '5.' },
  { ...existing, revenue_amount: '0.00' },
  { ...existing, send_email: 'yes' },
  { ...existing, client_id: '1a' },
  { ...existing, service_id: '-2' },
  { ...existing, qb_customer_id: 'x' },
  { ...newClient, last_name: '' },
  { ...newClient, status: 'gone' },
  { ...newClient, inactive_date: '2024-13-01' },
  { ...newClient, tAvailf: '9:00', tAvailt: '17:00' },
  { ...newClient, tAvailf: '24:00', tAvailt: '25:00' },
];

it.each(forms)('form %j: the document accepts it exactly when the local checks pass it', (form) => {
  const local = checkLocally(form, payment);
  const problems = checker.checkSchema('payment.form', form);
  expect({ accepted: problems.length === 0, local }).toEqual({ accepted: local.ok, local: local.ok ? local : expect.objectContaining({ code: expect.any(Number) }) });
  if (!local.ok) expect([0, 1]).toContain(local.code);
});
