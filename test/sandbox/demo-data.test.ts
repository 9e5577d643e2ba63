// The demo data: deterministic, the documented sizes and notable records, and v1 value types everywhere.
import { describe, expect, it } from 'vitest';
import { createSandboxApp } from '../../src/sandbox/index.js';
import { call, PRIMARY, useSandbox } from './harness.js';

const sandbox = useSandbox();

const RESOURCES = [
  'clients', 'staff', 'practitioners', 'services', 'sessions', 'discounts', 'timezones', 'payments', 'locations',
  'skills', 'packages',
] as const;

async function all(name: string): Promise<Record<string, unknown>[]> {
  const r = await call(sandbox().url, `/api/v1/${name}?limit=1000`, { headers: PRIMARY });
  expect(r.status).toBe(200);
  return (r.body as { data: Record<string, unknown>[] }).data;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}:\d{2}$/;
// Fields that are strings in v1 although they hold digits (as they were in the earlier API).
const STRING_FIELDS = new Set(['avail_id', 'start_interval', 'temp', 'qb_invoice_id', 'cancel_clients', 'zipcode']);

describe('demo data', () => {
  it('is the same in every new sandbox', () => {
    const a = createSandboxApp().state;
    const b = createSandboxApp().state;
    expect(a).toEqual(b);
    expect(a.clients).not.toBe(b.clients);
  });

  it('has the documented sizes', async () => {
    const sizes = Object.fromEntries(await Promise.all(RESOURCES.map(async (n) => [n, (await all(n)).length] as const)));
    expect(sizes).toEqual({
      clients: 300, staff: 30, practitioners: 25, services: 12, sessions: 500, discounts: 5, timezones: 21,
      payments: 4, locations: 4, skills: 6, packages: 3,
    });
  });

  it('uses v1 value types: numbers, strings or null; dates YYYY-MM-DD; times HH:MM:SS; never undefined', async () => {
    // Problems are collected and asserted once: one expect per field of 900 records is slow.
    const problems: string[] = [];
    for (const name of RESOURCES) {
      for (const record of await all(name)) {
        for (const [field, value] of Object.entries(record)) {
          const where = `${name}/${String(record.id)}.${field} = ${JSON.stringify(value)}`;
          const ok =
            value === null ||
            typeof value === 'string' ||
            (typeof value === 'number' && Number.isFinite(value) && !STRING_FIELDS.has(field));
          if (!ok) problems.push(`type: ${where}`);
          if (/date$|^dob$|^created$/.test(field) && value !== null && !DATE.test(String(value))) problems.push(`date: ${where}`);
          if (/_time$/.test(field) && value !== null && !TIME.test(String(value))) problems.push(`time: ${where}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('has client statuses active, inactive and prospect, and comma-separated e-mail lists', async () => {
    const clients = await all('clients');
    expect(new Set(clients.map((c) => c.status))).toEqual(new Set(['active', 'inactive', 'prospect']));
    const lists = clients.filter((c) => typeof c.email === 'string' && c.email.includes(','));
    expect(lists.map((c) => c.id)).toContain(2);
    expect(lists.length).toBeGreaterThan(5);
    expect(clients.find((c) => c.id === 2)?.email).toBe('grace.hopper@example.com, G.Hopper@Navy.example.mil');
    const usernames = clients.map((c) => c.username).filter((u): u is string => typeof u === 'string').map((u) => u.toLowerCase());
    expect(new Set(usernames).size).toBe(usernames.length);
    // Unique addresses: a new client's e-mail conflicts only with the client that really has it.
    const addresses = clients.flatMap((c) => (typeof c.email === 'string' ? c.email.split(',').map((a) => a.trim().toLowerCase()) : []));
    expect(new Set(addresses).size).toBe(addresses.length);
  });

  it('has staff and practitioner priority ties whose id order differs from first-name order', async () => {
    const staff = await all('staff');
    const five = staff.filter((s) => s.priority === 5);
    expect(five.map((s) => s.first_name)).toEqual(['Olivia', 'Emma', 'Ethan', 'Mia', 'Abigail', 'Matthew']);
    expect(new Set(staff.map((s) => s.status))).toEqual(new Set(['active', 'inactive', 'contactList', 'doNotHire']));
    expect(staff.some((s) => s.headshot_url === '')).toBe(true);
    expect(staff.some((s) => s.headshot_url === 'blank.png')).toBe(true);
    expect(staff.some((s) => typeof s.excerpt === 'string' && s.excerpt.includes('<'))).toBe(true);

    const practs = await all('practitioners');
    expect(practs.filter((p) => p.priority === 10).map((p) => p.first_name)).toEqual(['Rosa', 'Maria', 'Luis', 'Maria', 'Zara', 'Anna']);
    expect(practs.filter((p) => p.priority === null).map((p) => p.id)).toEqual([9, 20]);
    expect(practs.find((p) => p.id === 3)?.avail_id).toBe('36,37');
    expect(practs.find((p) => p.id === 9)?.add_value).toBeNull();
    for (const p of practs) expect([0, 1, 2]).toContain(p.wage_tier);
  });

  it('has a tiered service group and decimal costs', async () => {
    const services = await all('services');
    expect(services.filter((s) => s.group_id === 1).map((s) => [s.id, s.group_num])).toEqual([[1, 1], [2, 5], [3, 10]]);
    expect(services.filter((s) => (s.group_num as number) > 1).map((s) => s.id)).toEqual([2, 3, 11]);
    expect(services.find((s) => s.id === 1)?.service_cost).toBe(45.5);
    expect(services.find((s) => s.id === 5)?.service_cost).toBe(72.25);
    expect(services.find((s) => s.id === 4)?.service_cost).toBe(60);
  });

  it('has general, service-specific, inactive and used-up discount codes', async () => {
    const discounts = await all('discounts');
    expect(discounts.map((d) => [d.code, d.service_id, d.status])).toEqual([
      ['WELCOME10', null, 'active'],
      ['SWIM5', 1, 'active'],
      ['SUMMER2023', null, 'inactive'],
      ['PIANO20', 4, 'active'],
      ['FULLUP', null, 'active'],
    ]);
  });

  it('has sessions in America/Chicago referring to existing clients, practitioners and non-package services', async () => {
    const { state } = sandbox();
    const sessions = await all('sessions');
    const clients = new Set(state.clients.map((c) => c.id));
    const practs = new Set(state.practitioners.map((p) => p.id));
    const bookable = new Set(state.services.filter((s) => s.group_num === 1).map((s) => s.id));
    for (const s of sessions) {
      expect(s.timezone).toBe('America/Chicago');
      expect(clients.has(s.client_id as number)).toBe(true);
      expect(practs.has(s.pract_id as number)).toBe(true);
      expect(bookable.has(s.service_id as number)).toBe(true);
      expect((s.session_end_time as string) > (s.session_start_time as string)).toBe(true);
    }
    expect(sessions.some((s) => s.temp !== '0')).toBe(true);
  });

  it('has the required time zones with their offsets', async () => {
    const zones = Object.fromEntries((await all('timezones')).map((z) => [z.name, z.utc_offset]));
    expect(zones).toMatchObject({
      'America/New_York': '-05:00', 'America/Chicago': '-06:00', 'America/Denver': '-07:00',
      'America/Los_Angeles': '-08:00', 'Europe/London': '+00:00', UTC: '+00:00',
    });
  });
});
