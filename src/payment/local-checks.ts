// The payment checks that need no upstream call (codes 1, 0 and 3, in that order), on the legacy fields
// as received. Pure. A message names the offending fields, never a value (some are secrets).
import type { PaymentMapping } from './payment-mapping.js';
import { fill } from './messages.js';

export type LegacyFields = Readonly<Record<string, string>>;

export type LocalCheck = { ok: true } | { ok: false; code: 0 | 1 | 3; message: string };

const NEW_CLIENT_REQUIRED = ['first_name', 'last_name', 'state', 'country', 'status'];
const ID_FIELDS = ['client_id', 'service_id', 'qb_customer_id'];
const DATE_FIELDS = ['inactive_date'];
/** A plain decimal: digits, optionally a point and one or two decimals (no "1,000.00", "$5", "5."). */
const PLAIN_DECIMAL = /^\d{1,12}(?:\.\d{1,2})?$/;
const WHOLE = /^\d{1,15}$/;
const HOUR_MINUTE = /^(?:[01]\d|2[0-3]):[0-5]\d$/;

export const present = (fields: LegacyFields, name: string): boolean => (fields[name] ?? '') !== '';

function isCalendarDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

export function checkLocally(fields: LegacyFields, mapping: PaymentMapping): LocalCheck {
  const newClient = !present(fields, 'client_id');
  const missing = ['revenue_amount', 'send_email', ...(newClient ? NEW_CLIENT_REQUIRED : [])].filter((f) => !present(fields, f));
  if (missing.length > 0) return { ok: false, code: 1, message: fill(mapping.messages.missing, { fields: missing.join(', ') }) };

  const invalid: string[] = [];
  if (!PLAIN_DECIMAL.test(fields.revenue_amount!) || Number(fields.revenue_amount) <= 0) invalid.push('revenue_amount');
  if (fields.send_email !== '0' && fields.send_email !== '1') invalid.push('send_email');
  for (const f of ID_FIELDS) if (present(fields, f) && !WHOLE.test(fields[f]!)) invalid.push(f);
  if (newClient) {
    for (const f of DATE_FIELDS) if (present(fields, f) && !isCalendarDate(fields[f]!)) invalid.push(f);
    if (!mapping.clientStatuses.includes(fields.status!)) invalid.push('status');
    for (const day of mapping.newClient.availability.days) {
      const from = fields[day.from] ?? '';
      const to = fields[day.to] ?? '';
      if (from === '' && to === '') continue;
      if (!HOUR_MINUTE.test(from)) invalid.push(day.from);
      if (!HOUR_MINUTE.test(to) || (HOUR_MINUTE.test(from) && to <= from)) invalid.push(day.to);
    }
  }
  if (invalid.length > 0) return { ok: false, code: 0, message: fill(mapping.messages.invalid, { fields: invalid.join(', ') }) };

  if (present(fields, 'password') && fields.password !== (fields.password2 ?? '')) {
    return { ok: false, code: 3, message: mapping.messages.passwordsDiffer };
  }
  return { ok: true };
}
