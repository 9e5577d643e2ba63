// POST /api/v1/clients: validates a new client and appends it to the state. The rules, in the order
// they are checked (the first failure answers):
//   1. Body fields are checked in client-record order, then `password`, then `availability`; the first bad
//      one answers 400 invalid_request "<field> <problem>":
//      - first_name, last_name, status are required ("first_name is required"); status is one of
//        active | inactive | prospect;
//      - strings have a maximum length as stored, where each of & < > " ' counts 5 characters
//        (first_name and last_name 50, username 50, email 255; the others below);
//      - dob, inactive_date, start_date are YYYY-MM-DD dates; the 0/1 settings are 0 or 1 (default 0);
//      - email is one address or a comma-separated list of them;
//      - availability is an array of { day: monday..sunday, start: HH:MM:SS, end: HH:MM:SS }, end after start;
//      - unknown fields, `id` and `object` are ignored.
//   2. timezone, when given, must be a name of the timezones resource (400 naming timezone).
//   3. A username already used by a client, ignoring case: 409 conflict "username already exists".
//   4. Any e-mail address already used by another client, ignoring case: 409 conflict
//      "a client with this email already exists".
//   5. Success: 201 with the record under the next id; start_date defaults to today.
// `password` is write-only: it must never be stored, returned, recorded or logged.
import { z } from 'zod';
import { optionalDate, optionalFlag, optionalText, parseBody, requiredText, time } from './body-fields.js';
import { SandboxError } from './errors.js';
import { appendRecord, requireKnownTimezone } from './new-records.js';
import { CLIENT_FIELDS, type AvailabilityRecord, type ClientRecord } from './records.js';
import type { SandboxState } from './state.js';

const CLIENT_STATUSES = ['active', 'inactive', 'prospect'] as const;
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const EMAIL = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;

/** The addresses of a comma-separated list, trimmed and lower-cased for comparison. */
export function emailAddresses(list: string | null): string[] {
  if (list === null) return [];
  return list
    .split(',')
    .map((a) => a.trim().toLowerCase())
    .filter((a) => a !== '');
}

const newClientSchema = z.object({
  first_name: requiredText(50),
  last_name: requiredText(50),
  address1: optionalText(100),
  address2: optionalText(100),
  city: optionalText(50),
  state: optionalText(50),
  zipcode: optionalText(20),
  country: optionalText(50),
  p_phone: optionalText(30),
  s_phone: optionalText(30),
  text_phone: optionalText(100),
  dob: optionalDate(),
  status: z.enum(CLIENT_STATUSES, {
    error: (iss) =>
      iss.input === undefined || iss.input === null || iss.input === ''
        ? 'is required'
        : `must be one of ${CLIENT_STATUSES.join(', ')}`,
  }),
  inactive_date: optionalDate(),
  inactive_reason: optionalText(255),
  start_date: optionalDate(),
  notes: optionalText(65_535),
  timezone: optionalText(64),
  send_welcome_message: optionalFlag(0),
  send_lesson_reminders: optionalFlag(0),
  add_session: optionalFlag(0),
  see_practs_information: optionalFlag(0),
  text_reminders: optionalFlag(0),
  use_records: optionalFlag(0),
  session_cancel: optionalFlag(0),
  ace: optionalFlag(0),
  hide_costs: optionalFlag(0),
  username: optionalText(50),
  email: optionalText(255).refine((v) => v === null || v.split(',').every((a) => EMAIL.test(a.trim())), {
    error: 'must be an e-mail address or a comma-separated list of them',
  }),
  password: z.string({ error: 'must be a string' }).max(255, { error: 'is too long (at most 255 characters)' }).nullable().optional(),
  availability: z
    .array(
      z
        .object({
          day: z.enum(DAYS, {
            error: (iss) => (iss.input === undefined ? 'is required' : 'must be a day name, monday to sunday'),
          }),
          start: time(),
          end: time(),
        })
        .refine((w) => w.end > w.start, { error: 'must be after start', path: ['end'] }),
      { error: 'must be an array' },
    )
    .max(70, { error: 'has too many entries (at most 70)' })
    .nullable()
    .optional(),
});

/** Validates `body` and appends the new client (and its availability) to the state; throws SandboxError. */
export function createClient(state: SandboxState, body: unknown, today: string): ClientRecord {
  const input = parseBody(newClientSchema, body);

  requireKnownTimezone(state, input.timezone);
  const username = input.username?.toLowerCase();
  if (username !== undefined && state.clients.some((c) => c.username?.toLowerCase() === username)) {
    throw new SandboxError('conflict', 'username already exists');
  }
  const wanted = new Set(emailAddresses(input.email));
  if (state.clients.some((c) => emailAddresses(c.email).some((a) => wanted.has(a)))) {
    throw new SandboxError('conflict', 'a client with this email already exists');
  }

  // The body fields are the record's fields; password and availability are not, so they are left out.
  const client = appendRecord(state.clients, CLIENT_FIELDS, {
    ...input,
    object: 'client',
    start_date: input.start_date ?? today,
  });
  for (const window of input.availability ?? []) {
    const entry: AvailabilityRecord = { client_id: client.id, day: window.day, start: window.start, end: window.end };
    state.availability.push(entry);
  }
  return client;
}
