// List and record replies: envelope, paging, filters, ordering, and the field order of every record.
import { describe, expect, it } from 'vitest';
import { call, errorText, PRIMARY, useSandbox } from './harness.js';

const sandbox = useSandbox();

interface ListBody {
  object: string;
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
  data: Record<string, unknown>[];
}

async function list(path: string): Promise<ListBody> {
  const r = await call(sandbox().url, path, { headers: PRIMARY });
  expect(r.status, path).toBe(200);
  return r.body as ListBody;
}

const ids = (body: ListBody): unknown[] => body.data.map((r) => r.id);

// The contract, written out here rather than imported, so a reordering in src/ fails this test.
const FIELD_ORDER: Record<string, string[]> = {
  clients: [
    'object', 'id', 'first_name', 'last_name', 'address1', 'address2', 'city', 'state', 'zipcode', 'country', 'p_phone',
    's_phone', 'text_phone', 'dob', 'status', 'inactive_date', 'inactive_reason', 'start_date', 'notes', 'timezone',
    'send_welcome_message', 'send_lesson_reminders', 'add_session', 'see_practs_information', 'text_reminders',
    'use_records', 'session_cancel', 'ace', 'hide_costs', 'username', 'email',
  ],
  staff: [
    'object', 'id', 'users_id', 'staff_settings_id', 'admin_id', 'first_name', 'last_name', 'address1', 'address2',
    'city', 'state', 'zipcode', 'country', 'p_phone', 's_phone', 'text_phone', 'email', 'status', 'calendar_color',
    'hire_date', 'wage_tier', 'notes', 'position', 'excerpt', 'priority', 'headshot_url', 'send_welcome_message',
    's_staff', 's_timesheets', 's_session_control', 's_products', 's_records', 's_practs', 's_wages', 's_deductions',
    's_skills', 's_clients', 's_assess', 's_scheduling', 's_revenues', 's_balances', 's_invoices', 's_expenses',
    's_services', 's_taxes', 's_reconcile_duration', 's_costs_wages', 's_locations', 's_import', 's_langtrans',
    's_notif', 'pract_mass_email', 'client_mass_email', 'staff_mass_email', 's_email_history', 's_tasks', 's_branding',
    's_permissions', 's_leads', 's_sms', 's_breaks', 's_cancels', 's_conflicts', 's_custom_sessions', 's_docs',
    's_security',
  ],
  practitioners: [
    'object', 'id', 'pract_settings_id', 'users_id', 'admin_id', 'avail_id', 'first_name', 'last_name', 'address1',
    'address2', 'city', 'state', 'zipcode', 'country', 'p_phone', 's_phone', 'text_phone', 'email', 'status',
    'calendar_color', 'hire_date', 'wage_tier', 'add_value', 'notes', 'position', 'excerpt', 'priority',
    'headshot_url', 'send_welcome_message', 'send_lesson_reminders', 'text_reminders', 'see_clients_information',
    'team_assess', 'see_other_appointments', 'can_reconcile_duration', 'set_breaks', 'multi_practs',
    'online_booking', 'see_costs_wages', 'set_session_control', 'use_records',
  ],
  services: [
    'object', 'id', 'group_id', 'group_num', 'name', 'service_description', 'service_cost', 'service_default_wage',
    'service_taxable', 'service_type', 'service_status', 'online_booking', 'min_duration', 'max_duration',
    'start_interval',
  ],
  sessions: [
    'object', 'id', 'confirmed', 'multi', 'slots', 'class_id', 'display', 'pract_id', 'wage_id', 'client_id',
    'client_due_id', 'cancel_clients', 'temp', 'service_id', 'location_id', 'recurr_id', 'recurr_on',
    'qb_invoice_id', 'session_status', 'custom_map_id', 'session_reminder', 'session_sms', 'session_description',
    'session_date', 'session_start_time', 'session_end_time', 'session_note', 'session_private_note',
    'session_other_note', 'assessment_moderation', 'assessment_present', 'timezone',
  ],
  discounts: ['object', 'id', 'code', 'description', 'amount_type', 'amount', 'service_id', 'status', 'max_uses', 'uses'],
  timezones: ['object', 'id', 'name', 'utc_offset'],
  payments: [
    'object', 'id', 'client_id', 'service_id', 'amount', 'discount_code', 'note', 'send_email', 'timezone', 'status',
    'created',
  ],
};

const OBJECT_NAME: Record<string, string> = {
  clients: 'client', staff: 'staff', practitioners: 'practitioner', services: 'service', sessions: 'session',
  discounts: 'discount', timezones: 'timezone', payments: 'payment', locations: 'location', skills: 'skill',
  packages: 'package',
};

describe('list envelope and paging', () => {
  it('answers the envelope in order object, total, limit, offset, has_more, data, with the defaults', async () => {
    const r = await call(sandbox().url, '/api/v1/clients', { headers: PRIMARY });
    expect(r.text.startsWith('{"object":"list","total":300,"limit":100,"offset":0,"has_more":true,"data":[{"object":"client","id":1,')).toBe(true);
    const body = r.body as ListBody;
    expect(Object.keys(body)).toEqual(['object', 'total', 'limit', 'offset', 'has_more', 'data']);
    expect(ids(body)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('pages with limit and offset until has_more is false', async () => {
    const seen: unknown[] = [];
    for (let offset = 0; ; offset += 128) {
      const body = await list(`/api/v1/clients?limit=128&offset=${String(offset)}`);
      expect(body.limit).toBe(128);
      expect(body.offset).toBe(offset);
      expect(body.total).toBe(300);
      seen.push(...ids(body));
      if (!body.has_more) break;
    }
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  });

  it('answers an empty page past the end', async () => {
    const body = await list('/api/v1/services?offset=500');
    expect(body).toEqual({ object: 'list', total: 12, limit: 100, offset: 500, has_more: false, data: [] });
  });

  it('accepts limit 1 and 1000', async () => {
    expect(ids(await list('/api/v1/sessions?limit=1'))).toEqual([1]);
    const all = await list('/api/v1/sessions?limit=1000');
    expect(all.data).toHaveLength(500);
    expect(all.has_more).toBe(false);
  });

  it('answers 400 invalid_request naming limit or offset when malformed', async () => {
    const limitMessage = 'limit must be an integer from 1 to 1000';
    const offsetMessage = 'offset must be an integer of 0 or more';
    const cases: [string, string][] = [
      ['limit=0', limitMessage],
      ['limit=1001', limitMessage],
      ['limit=-1', limitMessage],
      ['limit=abc', limitMessage],
      ['limit=10.5', limitMessage],
      ['limit=', limitMessage],
      ['limit=5&limit=6', limitMessage],
      ['offset=-1', offsetMessage],
      ['offset=x', offsetMessage],
      ['offset=1e3', offsetMessage],
    ];
    for (const [query, message] of cases) {
      const r = await call(sandbox().url, `/api/v1/clients?${query}`, { headers: PRIMARY });
      expect(r.status, query).toBe(400);
      expect(r.text).toBe(errorText('invalid_request', message));
    }
  });

  it('orders by id ascending, records added out of order included', async () => {
    const { state } = sandbox();
    const skill = { object: 'skill' as const, name: 'Chess', description: null };
    state.skills.push({ ...skill, id: 50 }, { ...skill, id: 40 });
    try {
      expect(ids(await list('/api/v1/skills'))).toEqual([1, 2, 3, 4, 5, 6, 40, 50]);
    } finally {
      state.skills.splice(-2);
    }
  });
});

describe('filters', () => {
  it('matches a client e-mail against any address of its list, ignoring case', async () => {
    for (const email of ['G.Hopper@Navy.example.mil', 'g.hopper@navy.example.mil', 'GRACE.HOPPER@example.com']) {
      const body = await list(`/api/v1/clients?email=${encodeURIComponent(email)}`);
      expect(ids(body)).toEqual([2]);
      expect(body.total).toBe(1);
    }
    expect((await list('/api/v1/clients?email=hopper')).total).toBe(0);
    expect((await list('/api/v1/clients?email=grace.hopper%40example.com%2C')).total).toBe(0);
  });

  it('matches username, first_name and last_name ignoring case, status exactly', async () => {
    expect(ids(await list('/api/v1/clients?username=ghopper'))).toEqual([2]);
    expect(ids(await list('/api/v1/clients?first_name=john&last_name=SMITH'))).toEqual([3, 4]);
    expect(ids(await list('/api/v1/clients?first_name=John&last_name=Smith&status=inactive'))).toEqual([4]);
    expect(ids(await list(`/api/v1/clients?last_name=${encodeURIComponent("o'brien")}`))).toEqual([5]);
    expect((await list('/api/v1/clients?status=Active')).total).toBe(0);
    const active = await list('/api/v1/clients?status=active&limit=1000');
    expect(active.total).toBe(sandbox().state.clients.filter((c) => c.status === 'active').length);
    expect(active.data.every((c) => c.status === 'active')).toBe(true);
  });

  it('ignores unknown filter parameters', async () => {
    const body = await list('/api/v1/clients?format=json&colour=blue&limit=3');
    expect(body.total).toBe(300);
    expect(ids(body)).toEqual([1, 2, 3]);
  });

  it('filters sessions by client_id, pract_id and session_date, combined', async () => {
    const { state } = sandbox();
    const byClient = await list('/api/v1/sessions?client_id=1&limit=1000');
    expect(byClient.total).toBe(state.sessions.filter((s) => s.client_id === 1).length);
    expect(byClient.total).toBeGreaterThan(0);
    const first = state.sessions[0];
    if (first === undefined) throw new Error('no sessions');
    const combined = await list(
      `/api/v1/sessions?pract_id=${String(first.pract_id)}&session_date=${String(first.session_date)}&limit=1000`,
    );
    expect(combined.data.map((s) => s.id)).toContain(first.id);
    expect(combined.data.every((s) => s.pract_id === first.pract_id && s.session_date === first.session_date)).toBe(true);
  });

  it('answers 400 naming an integer or date filter that is malformed', async () => {
    for (const [query, message] of [
      ['client_id=abc', 'client_id must be an integer'],
      ['pract_id=1.5', 'pract_id must be an integer'],
      ['session_date=2024-02-30', 'session_date must be a date YYYY-MM-DD'],
      ['session_date=01/02/2024', 'session_date must be a date YYYY-MM-DD'],
    ] as const) {
      const r = await call(sandbox().url, `/api/v1/sessions?${query}`, { headers: PRIMARY });
      expect(r.status, query).toBe(400);
      expect(r.text).toBe(errorText('invalid_request', message));
    }
  });

  it('filters services by group_id and service_status, discounts by code ignoring case, timezones by name', async () => {
    expect(ids(await list('/api/v1/services?group_id=1'))).toEqual([1, 2, 3]);
    expect(ids(await list('/api/v1/services?service_status=0'))).toEqual([12]);
    expect(ids(await list('/api/v1/discounts?code=swim5'))).toEqual([2]);
    expect(ids(await list('/api/v1/timezones?name=America%2FChicago'))).toEqual([2]);
    expect((await list('/api/v1/staff?status=doNotHire')).data.map((s) => s.first_name)).toEqual(['Elijah']);
    expect((await list('/api/v1/practitioners?status=inactive')).data.map((p) => p.id)).toEqual([6, 20]);
  });

  it('matches an empty filter value against empty (null) fields only', async () => {
    const body = await list('/api/v1/clients?email=&limit=1000');
    expect(body.total).toBe(sandbox().state.clients.filter((c) => c.email === null).length);
    expect(ids(body)).toContain(6);
  });
});

describe('records', () => {
  it.each(Object.keys(FIELD_ORDER))('writes %s records in the contract field order', async (name) => {
    const body = await list(`/api/v1/${name}?limit=1000`);
    expect(body.data.length).toBeGreaterThan(0);
    for (const record of body.data) expect(Object.keys(record)).toEqual(FIELD_ORDER[name]);
    const first = body.data[0];
    const one = await call(sandbox().url, `/api/v1/${name}/${String(first?.id)}`, { headers: PRIMARY });
    expect(one.status).toBe(200);
    expect(one.text).toBe(JSON.stringify(first));
  });

  it.each(Object.keys(OBJECT_NAME))('starts every %s record with its object name', async (name) => {
    const body = await list(`/api/v1/${name}?limit=1000`);
    expect(body.data.length).toBeGreaterThan(0);
    for (const record of body.data) {
      expect(Object.keys(record)[0]).toBe('object');
      expect(record.object).toBe(OBJECT_NAME[name]);
      expect(Object.keys(record)[1]).toBe('id');
    }
  });

  it('writes a record a test pushed with missing fields in full field order, missing as null', async () => {
    const { state } = sandbox();
    state.timezones.push({ id: 99, utc_offset: '+12:00', name: 'Pacific/Auckland', object: 'timezone' });
    try {
      const r = await call(sandbox().url, '/api/v1/timezones/99', { headers: PRIMARY });
      expect(r.text).toBe('{"object":"timezone","id":99,"name":"Pacific/Auckland","utc_offset":"+12:00"}');
    } finally {
      state.timezones.pop();
    }
  });

  it('never returns a deleted package, listed or by id', async () => {
    const body = await list('/api/v1/packages');
    expect(body.data.map((p) => p.status)).toEqual(['active', 'secret', 'inactive']);
    const r = await call(sandbox().url, '/api/v1/packages/4', { headers: PRIMARY });
    expect(r.status).toBe(404);
    expect(r.text).toBe(errorText('not_found', 'no package with id 4'));
  });
});
