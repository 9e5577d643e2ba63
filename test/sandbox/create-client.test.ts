// POST /api/v1/clients: required fields, formats, stored lengths, conflicts, success, write-only password.
import { describe, expect, it } from 'vitest';
import { call, errorText, postJson, PRIMARY, SECONDARY, useSandbox } from './harness.js';

// Fixed clock: 2024-06-15T12:00:00Z, so a defaulted start_date is known.
const sandbox = useSandbox({ now: () => Date.UTC(2024, 5, 15, 12) });

const minimal = { first_name: 'Alan', last_name: 'Turing', status: 'active' };

async function expect400(body: unknown, message: string): Promise<void> {
  const before = sandbox().state.clients.length;
  const r = await postJson(sandbox().url, '/api/v1/clients', body);
  expect(r.status, message).toBe(400);
  expect(r.text).toBe(errorText('invalid_request', message));
  expect(sandbox().state.clients).toHaveLength(before);
}

describe('POST /api/v1/clients', () => {
  it('creates a client: 201 with the full record under the next id, appended to the list', async () => {
    const { state, url } = sandbox();
    const nextId = Math.max(...state.clients.map((c) => c.id)) + 1;
    const r = await postJson(url, '/api/v1/clients', {
      ...minimal,
      email: 'alan@bletchley.example.uk',
      username: 'aturing',
      dob: '1912-06-23',
      timezone: 'Europe/London',
      send_welcome_message: 1,
      city: '',
      id: 5,
      object: 'something',
      unknown_field: 'ignored',
    });
    expect(r.status).toBe(201);
    expect(r.text).toBe(
      JSON.stringify({
        object: 'client', id: nextId, first_name: 'Alan', last_name: 'Turing', address1: null, address2: null, city: null,
        state: null, zipcode: null, country: null, p_phone: null, s_phone: null, text_phone: null, dob: '1912-06-23',
        status: 'active', inactive_date: null, inactive_reason: null, start_date: '2024-06-15', notes: null,
        timezone: 'Europe/London', send_welcome_message: 1, send_lesson_reminders: 0, add_session: 0,
        see_practs_information: 0, text_reminders: 0, use_records: 0, session_cancel: 0, ace: 0, hide_costs: 0,
        username: 'aturing', email: 'alan@bletchley.example.uk',
      }),
    );
    const listed = await call(url, `/api/v1/clients?offset=${String(nextId - 1)}`, { headers: PRIMARY });
    expect((listed.body as { data: unknown[] }).data).toEqual([r.body]);
    expect((await call(url, `/api/v1/clients/${String(nextId)}`, { headers: PRIMARY })).text).toBe(r.text);
  });

  it('is allowed for the secondary key', async () => {
    const r = await postJson(sandbox().url, '/api/v1/clients', { ...minimal, username: 'secondary-made' }, SECONDARY);
    expect(r.status).toBe(201);
  });

  it('never returns, lists or records the password', async () => {
    const { state, url } = sandbox();
    const r = await postJson(url, '/api/v1/clients', { ...minimal, username: 'pw-user', password: 'S3cret-Passw0rd' });
    expect(r.status).toBe(201);
    expect(r.text).not.toContain('S3cret');
    expect(Object.keys(r.body as object)).not.toContain('password');
    expect(JSON.stringify(state)).not.toContain('S3cret');
    // The stored record holds the client fields alone, in order, as the reply does.
    expect(JSON.stringify(state.clients.at(-1))).toBe(r.text);
  });

  it('requires first_name, last_name and status, naming the field', async () => {
    await expect400({ last_name: 'Turing', status: 'active' }, 'first_name is required');
    await expect400({ first_name: '   ', last_name: 'Turing', status: 'active' }, 'first_name is required');
    await expect400({ first_name: 'Alan', last_name: null, status: 'active' }, 'last_name is required');
    await expect400({ first_name: 'Alan', last_name: 'Turing' }, 'status is required');
    await expect400({ ...minimal, status: 'gone' }, 'status must be one of active, inactive, prospect');
  });

  it('checks dates, 0/1 settings, types and e-mail addresses, naming the field', async () => {
    await expect400({ ...minimal, dob: '1912-13-01' }, 'dob must be a date YYYY-MM-DD');
    await expect400({ ...minimal, inactive_date: '23/06/1912' }, 'inactive_date must be a date YYYY-MM-DD');
    await expect400({ ...minimal, start_date: '2024-02-30' }, 'start_date must be a date YYYY-MM-DD');
    await expect400({ ...minimal, ace: 2 }, 'ace must be 0 or 1');
    await expect400({ ...minimal, hide_costs: '1' }, 'hide_costs must be 0 or 1');
    await expect400({ ...minimal, city: 12 }, 'city must be a string');
    await expect400({ ...minimal, email: 'not-an-address' }, 'email must be an e-mail address or a comma-separated list of them');
    await expect400({ ...minimal, timezone: 'Mars/Olympus' }, 'timezone must be a time zone name listed by /api/v1/timezones');
  });

  it('checks stored length: & < > " \' count 5 characters each', async () => {
    const fifty = 'x'.repeat(50);
    expect((await postJson(sandbox().url, '/api/v1/clients', { ...minimal, first_name: fifty })).status).toBe(201);
    await expect400({ ...minimal, first_name: `${fifty}y` }, 'first_name is too long (at most 50 characters as stored)');
    // 45 letters and one "&": 46 sent, 50 stored: accepted; two of them: 47 sent, 54 stored: refused.
    const fits = `${'x'.repeat(45)}&`;
    expect((await postJson(sandbox().url, '/api/v1/clients', { ...minimal, last_name: fits })).status).toBe(201);
    await expect400({ ...minimal, last_name: `${'x'.repeat(45)}&'` }, 'last_name is too long (at most 50 characters as stored)');
    await expect400({ ...minimal, last_name: '<>'.repeat(6) }, 'last_name is too long (at most 50 characters as stored)');
  });

  it('checks availability windows, naming the entry and field', async () => {
    const window = { day: 'monday', start: '09:00:00', end: '12:00:00' };
    await expect400({ ...minimal, availability: { day: 'monday' } }, 'availability must be an array');
    await expect400({ ...minimal, availability: [window, { ...window, day: 'funday' }] }, 'availability[1].day must be a day name, monday to sunday');
    await expect400({ ...minimal, availability: [{ ...window, start: '9:00' }] }, 'availability[0].start must be a time HH:MM:SS');
    await expect400({ ...minimal, availability: [{ ...window, end: '24:00:00' }] }, 'availability[0].end must be a time HH:MM:SS');
    await expect400({ ...minimal, availability: [{ day: 'monday', start: '09:00:00' }] }, 'availability[0].end is required');
    await expect400({ ...minimal, availability: [{ ...window, end: '08:00:00' }] }, 'availability[0].end must be after start');

    const { state, url } = sandbox();
    const r = await postJson(url, '/api/v1/clients', {
      ...minimal,
      username: 'avail-user',
      availability: [window, { day: 'sunday', start: '14:30:00', end: '18:00:00' }],
    });
    expect(r.status).toBe(201);
    const id = (r.body as { id: number }).id;
    expect(state.availability.filter((a) => a.client_id === id)).toEqual([
      { client_id: id, day: 'monday', start: '09:00:00', end: '12:00:00' },
      { client_id: id, day: 'sunday', start: '14:30:00', end: '18:00:00' },
    ]);
    expect(Object.keys(r.body as object)).not.toContain('availability');
  });

  it('answers 409 conflict for a username already used, ignoring case', async () => {
    const { state, url } = sandbox();
    const before = state.clients.length;
    for (const username of ['ghopper', 'ADA.LOVELACE']) {
      const r = await postJson(url, '/api/v1/clients', { ...minimal, username });
      expect(r.status).toBe(409);
      expect(r.text).toBe(errorText('conflict', 'username already exists'));
    }
    expect(state.clients).toHaveLength(before);
  });

  it('answers 409 conflict for an e-mail address another client uses, from any place in either list', async () => {
    const { state, url } = sandbox();
    const before = state.clients.length;
    for (const email of ['g.hopper@navy.example.mil', 'new@example.com, ADA.LOVELACE@example.com']) {
      const r = await postJson(url, '/api/v1/clients', { ...minimal, email });
      expect(r.status, email).toBe(409);
      expect(r.text).toBe(errorText('conflict', 'a client with this email already exists'));
    }
    expect(state.clients).toHaveLength(before);
  });

  it('checks the username before the e-mail address', async () => {
    const r = await postJson(sandbox().url, '/api/v1/clients', { ...minimal, username: 'jsmith', email: 'john.smith@example.com' });
    expect(r.text).toBe(errorText('conflict', 'username already exists'));
  });
});
