// The payment checks that need no upstream call (codes 1, 0 and 3, in that order), on the legacy fields
// as received: the contract's rules (contract.ts) as zod schemas built once per payment mapping. Pure.
// A message names the offending fields, never a value (some are secrets).
import { z } from 'zod';
import {
  CLIENT_ID_FIELD,
  FORMATS,
  NEW_CLIENT_DATE_FIELDS,
  PAYMENT_CODES,
  REQUIRED_ALWAYS,
  REQUIRED_FOR_NEW_CLIENT,
  SEND_EMAIL_VALUES,
  WHOLE_NUMBER_FIELDS,
  availabilityFaults,
  isCalendarDate,
  isPlainAmount,
  passwordsDiffer,
} from './contract.js';
import { fillMessage } from './message-template.js';
import type { PaymentMapping } from './payment-mapping.js';

export type LegacyFields = Readonly<Record<string, string>>;

type LocalCode = typeof PAYMENT_CODES.missingFields | typeof PAYMENT_CODES.invalidFields | typeof PAYMENT_CODES.passwordsDiffer;

export type LocalCheck = { ok: true } | { ok: false; code: LocalCode; message: string };

export const present = (fields: LegacyFields, name: string): boolean => (fields[name] ?? '') !== '';

/** An optional field: absent or empty passes; otherwise `rule` decides. */
const optional = (rule: z.ZodType<string>) => z.union([z.literal(''), rule]).optional();

const required = (names: readonly string[]) => z.object(Object.fromEntries(names.map((n) => [n, z.string().min(1)])));

function formatSchema(mapping: PaymentMapping, newClient: boolean) {
  // The order of the keys is the order the message names the fields in.
  const shape: Record<string, z.ZodType> = {
    revenue_amount: z.string().refine(isPlainAmount),
    send_email: z.enum(SEND_EMAIL_VALUES),
  };
  for (const name of WHOLE_NUMBER_FIELDS) shape[name] = optional(z.string().regex(FORMATS.wholeNumber));
  if (newClient) {
    for (const name of NEW_CLIENT_DATE_FIELDS) shape[name] = optional(z.string().refine(isCalendarDate));
    shape.status = z.enum(mapping.clientStatuses as [string, ...string[]]);
  }
  return z.object(shape);
}

/** A new client's weekly availability: per day both times or neither, HH:MM, the end after the start. */
function availabilitySchema(mapping: PaymentMapping) {
  return z.record(z.string(), z.string()).superRefine((fields, ctx) => {
    for (const day of mapping.newClient.availability.days) {
      const faults = availabilityFaults(fields[day.from] ?? '', fields[day.to] ?? '');
      if (faults.from) ctx.addIssue({ code: 'custom', path: [day.from], message: 'HH:MM' });
      if (faults.to) ctx.addIssue({ code: 'custom', path: [day.to], message: 'HH:MM after the start' });
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
    existing: { required: required(REQUIRED_ALWAYS), format: [formatSchema(mapping, false)] },
    // Two schemas, both always run, so one message names every malformed field.
    newClient: { required: required([...REQUIRED_ALWAYS, ...REQUIRED_FOR_NEW_CLIENT]), format: [formatSchema(mapping, true), availabilitySchema(mapping)] },
  };
  return {
    check(fields) {
      const { required: presence, format } = present(fields, CLIENT_ID_FIELD) ? schemas.existing : schemas.newClient;
      const missing = presence.safeParse(fields);
      if (!missing.success) return { ok: false, code: PAYMENT_CODES.missingFields, message: fillMessage(mapping.messages.missing, { fields: fieldNames(missing.error).join(', ') }) };
      const invalid = format.flatMap((schema) => {
        const result = schema.safeParse(fields);
        return result.success ? [] : fieldNames(result.error);
      });
      if (invalid.length > 0) return { ok: false, code: PAYMENT_CODES.invalidFields, message: fillMessage(mapping.messages.invalid, { fields: invalid.join(', ') }) };
      if (passwordsDiffer(fields)) return { ok: false, code: PAYMENT_CODES.passwordsDiffer, message: mapping.messages.passwordsDiffer };
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
