// The payment checks that need no upstream call (codes 1, 0 and 3, in that order), on the legacy fields
// as received, with zod schemas built once per payment mapping. Pure. A message names the offending
// fields, never a value (some are secrets).
import { z } from 'zod';
import { fill } from './messages.js';
import type { PaymentMapping } from './payment-mapping.js';

export type LegacyFields = Readonly<Record<string, string>>;

export type LocalCheck = { ok: true } | { ok: false; code: 0 | 1 | 3; message: string };

const ALWAYS_REQUIRED = ['revenue_amount', 'send_email'];
const NEW_CLIENT_REQUIRED = ['first_name', 'last_name', 'state', 'country', 'status'];
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

/** An optional field: absent or empty passes; otherwise `rule` decides. */
const optional = (rule: z.ZodType<string>) => z.union([z.literal(''), rule]).optional();

const required = (names: readonly string[]) => z.object(Object.fromEntries(names.map((n) => [n, z.string().min(1)])));

function formatSchema(mapping: PaymentMapping, newClient: boolean) {
  const shape: Record<string, z.ZodType> = {
    revenue_amount: z.string().regex(PLAIN_DECIMAL).refine((v) => Number(v) > 0),
    send_email: z.enum(['0', '1']),
    client_id: optional(z.string().regex(WHOLE)),
    service_id: optional(z.string().regex(WHOLE)),
    qb_customer_id: optional(z.string().regex(WHOLE)),
  };
  if (newClient) {
    shape.inactive_date = optional(z.string().refine(isCalendarDate));
    shape.status = z.enum(mapping.clientStatuses as [string, ...string[]]);
  }
  return z.object(shape);
}

/** A new client's weekly availability: per day both times or neither, HH:MM, the end after the start. */
function availabilitySchema(mapping: PaymentMapping) {
  return z.record(z.string(), z.string()).superRefine((fields, ctx) => {
    for (const day of mapping.newClient.availability.days) {
      const from = fields[day.from] ?? '';
      const to = fields[day.to] ?? '';
      if (from === '' && to === '') continue;
      if (!HOUR_MINUTE.test(from)) ctx.addIssue({ code: 'custom', path: [day.from], message: 'HH:MM' });
      if (!HOUR_MINUTE.test(to) || (HOUR_MINUTE.test(from) && to <= from)) ctx.addIssue({ code: 'custom', path: [day.to], message: 'HH:MM after the start' });
    }
  });
}

/** The names of the fields zod found fault with, once each, in the order of the schema. */
function fieldNames(error: z.ZodError): string[] {
  return [...new Set(error.issues.map((i) => String(i.path[0] ?? 'body')))];
}

export interface LocalChecker {
  check(fields: LegacyFields): LocalCheck;
}

/** Builds the checks for one payment mapping (once, at start-up). */
export function localChecker(mapping: PaymentMapping): LocalChecker {
  const schemas = {
    existing: { required: required(ALWAYS_REQUIRED), format: [formatSchema(mapping, false)] },
    // Two schemas, both always run, so one message names every malformed field.
    newClient: { required: required([...ALWAYS_REQUIRED, ...NEW_CLIENT_REQUIRED]), format: [formatSchema(mapping, true), availabilitySchema(mapping)] },
  };
  return {
    check(fields) {
      const { required: presence, format } = present(fields, 'client_id') ? schemas.existing : schemas.newClient;
      const missing = presence.safeParse(fields);
      if (!missing.success) return { ok: false, code: 1, message: fill(mapping.messages.missing, { fields: fieldNames(missing.error).join(', ') }) };
      const invalid = format.flatMap((schema) => {
        const result = schema.safeParse(fields);
        return result.success ? [] : fieldNames(result.error);
      });
      if (invalid.length > 0) return { ok: false, code: 0, message: fill(mapping.messages.invalid, { fields: invalid.join(', ') }) };
      if (present(fields, 'password') && fields.password !== (fields.password2 ?? '')) {
        return { ok: false, code: 3, message: mapping.messages.passwordsDiffer };
      }
      return { ok: true };
    },
  };
}

// Mappings are loaded once; so is each one's checker.
const checkers = new WeakMap<PaymentMapping, LocalChecker>();

export function checkLocally(fields: LegacyFields, mapping: PaymentMapping): LocalCheck {
  let checker = checkers.get(mapping);
  if (!checker) {
    checker = localChecker(mapping);
    checkers.set(mapping, checker);
  }
  return checker.check(fields);
}
