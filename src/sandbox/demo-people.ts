// Demo clients, staff and practitioners: fixed hand-written records for the cases tests name, the rest
// generated from a seeded PRNG. Deterministic: it must never read the clock or Math.random, and the
// hand-written records (ids documented below) must keep their values, since tests rely on them.
import { addDays } from './calendar.js';
import { createPrng, type Prng } from './prng.js';
import {
  STAFF_PERMISSION_FLAGS,
  type ClientRecord,
  type PostalAddress,
  type PractitionerRecord,
  type StaffPermissionFlag,
  type StaffRecord,
  type TeamProfile,
} from './records.js';

export const DEMO_CLIENT_COUNT = 300;
const ADMIN_ID = 1;

const FIRST_NAMES = [
  'James', 'Mary', 'Robert', 'Patricia', 'Michael', 'Jennifer', 'William', 'Linda', 'David', 'Barbara', 'Richard',
  'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen', 'Zoë', 'José', 'Chloé', 'Mateo', 'Aiko',
  'Priya', 'Kwame', 'Ingrid', 'Liam', 'Fatima', 'Hiroshi', 'Olga',
] as const;
const LAST_NAMES = [
  'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez',
  'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee', "O'Neil", 'Nguyen',
  'Müller', 'Kowalski', 'Okafor', 'Haddad', 'Silva', 'Tanaka', 'Dubois', 'Van der Berg', 'Smith-Jones',
] as const;
const STREETS = ['Maple Ave', 'Oak St', 'Pine Rd', 'Cedar Ln', 'Elm St', 'Lakeview Dr', 'Hillcrest Rd', 'Main St'];
/** The part of an address below the street lines, spread into a record where its fields belong. */
type Place = Pick<PostalAddress, 'city' | 'state' | 'zipcode' | 'country'>;
const CITIES: readonly Place[] = [
  { city: 'Springfield', state: 'IL', zipcode: '62704', country: 'US' },
  { city: 'Madison', state: 'WI', zipcode: '53703', country: 'US' },
  { city: 'Austin', state: 'TX', zipcode: '78701', country: 'US' },
  { city: 'Boulder', state: 'CO', zipcode: '80302', country: 'US' },
  { city: 'Portland', state: 'OR', zipcode: '97205', country: 'US' },
  { city: 'Brooklyn', state: 'NY', zipcode: '11201', country: 'US' },
  { city: 'Toronto', state: 'ON', zipcode: 'M5V 2T6', country: 'CA' },
];
const CLIENT_TIMEZONES = [
  'America/New_York', 'America/New_York', 'America/New_York', 'America/Chicago', 'America/Chicago',
  'America/Denver', 'America/Los_Angeles',
];
const INACTIVE_REASONS = ['Moved away', 'Finished program', 'Schedule conflict', 'Price', 'No reason given'];
const COLORS = ['#3a87ad', '#e67e22', '#27ae60', '#8e44ad', '#c0392b', '#16a085', '#2c3e50', '#f1c40f'];

/** ASCII letters only, for building e-mail addresses and usernames out of names like "Zoë O'Neil". */
function asciiLetters(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z]/g, '');
}

function asciiSlug(name: string): string {
  return asciiLetters(name).toLowerCase();
}

function phone(rng: Prng): string {
  return `(555) ${String(rng.int(100, 999))}-${String(rng.int(1000, 9999))}`;
}

function flag(rng: Prng, pYes = 0.5): number {
  return rng.chance(pYes) ? 1 : 0;
}

function generatedClient(rng: Prng, id: number): ClientRecord {
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  const place = rng.pick(CITIES);
  const roll = rng.next();
  const status = roll < 0.75 ? 'active' : roll < 0.9 ? 'inactive' : 'prospect';
  const startDate = addDays('2015-01-05', rng.int(0, 3400));
  const primaryEmail = `${asciiSlug(first)}.${asciiSlug(last)}${String(id)}@example.com`;
  // Every 23rd client keeps a second address, as the earlier API's comma-separated lists did.
  const email =
    status === 'prospect' && rng.chance(0.3)
      ? null
      : id % 23 === 0
        ? `${primaryEmail}, ${asciiSlug(first)}${String(id)}@family.example.org`
        : primaryEmail;
  const username =
    status === 'prospect'
      ? null
      : id % 7 === 0
        ? `${asciiLetters(first)}${asciiLetters(last)}${String(id)}` // mixed case: usernames match case-insensitively
        : `${asciiSlug(first)}${String(id)}`;
  return {
    object: 'client',
    id,
    first_name: first,
    last_name: last,
    address1: `${String(rng.int(1, 9999))} ${rng.pick(STREETS)}`,
    address2: rng.chance(0.3) ? `Apt ${String(rng.int(1, 40))}${rng.pick(['A', 'B', 'C'])}` : null,
    ...place,
    p_phone: phone(rng),
    s_phone: rng.chance(0.35) ? phone(rng) : null,
    text_phone: rng.chance(0.1) ? `${phone(rng)}, ${phone(rng)}` : rng.chance(0.6) ? phone(rng) : null,
    dob: rng.chance(0.9) ? addDays('1950-01-01', rng.int(0, 24000)) : null,
    status,
    inactive_date: status === 'inactive' ? addDays(startDate, rng.int(30, 900)) : null,
    inactive_reason: status === 'inactive' ? rng.pick(INACTIVE_REASONS) : null,
    start_date: startDate,
    notes: rng.chance(0.15) ? rng.pick(['Prefers mornings', 'Allergic to latex & nuts', 'Parent: "call first"', 'Uses <b>wheelchair</b> access']) : null,
    timezone: rng.chance(0.05) ? null : rng.pick(CLIENT_TIMEZONES),
    send_welcome_message: flag(rng, 0.8),
    send_lesson_reminders: flag(rng, 0.7),
    add_session: flag(rng, 0.3),
    see_practs_information: flag(rng, 0.6),
    text_reminders: flag(rng, 0.4),
    use_records: flag(rng, 0.5),
    session_cancel: flag(rng, 0.5),
    ace: flag(rng, 0.1),
    hide_costs: flag(rng, 0.2),
    username,
    email,
  };
}

/** Hand-written clients 1 to 6: the cases gateway tests look up by name. */
function notableClients(rng: Prng): ClientRecord[] {
  const base = (id: number): ClientRecord => generatedClient(rng, id);
  return [
    {
      ...base(1),
      first_name: 'Ada', last_name: 'Lovelace', address1: '12 St James Square', address2: null, city: 'Springfield',
      state: 'IL', zipcode: '62704', country: 'US', p_phone: '(555) 100-0001', s_phone: null, text_phone: '(555) 100-0001',
      dob: '1985-12-10', status: 'active', inactive_date: null, inactive_reason: null, start_date: '2019-03-01',
      notes: 'VIP client', timezone: 'America/New_York', username: 'ada.lovelace', email: 'ada.lovelace@example.com',
    },
    {
      ...base(2),
      first_name: 'Grace', last_name: 'Hopper', status: 'active', inactive_date: null, inactive_reason: null,
      timezone: 'America/New_York', username: 'GHopper',
      email: 'grace.hopper@example.com, G.Hopper@Navy.example.mil',
    },
    {
      ...base(3),
      first_name: 'John', last_name: 'Smith', status: 'active', inactive_date: null, inactive_reason: null,
      username: 'jsmith', email: 'john.smith@example.com',
    },
    {
      ...base(4),
      first_name: 'John', last_name: 'Smith', status: 'inactive', inactive_date: '2023-06-30',
      inactive_reason: 'Moved away', username: 'jsmith2', email: 'johnny.smith@example.net',
    },
    {
      ...base(5),
      first_name: 'Siobhán', last_name: "O'Brien", status: 'active', inactive_date: null, inactive_reason: null,
      notes: 'Invoices go to "accounts" <billing@obrien.example.ie>', username: 'siobhan', email: 'siobhan@obrien.example.ie',
    },
    {
      object: 'client', id: 6, first_name: 'Pat', last_name: 'Prospect', address1: null, address2: null, city: null,
      state: null, zipcode: null, country: null, p_phone: null, s_phone: null, text_phone: null, dob: null,
      status: 'prospect', inactive_date: null, inactive_reason: null, start_date: '2024-05-20', notes: null,
      timezone: null, send_welcome_message: 0, send_lesson_reminders: 0, add_session: 0, see_practs_information: 0,
      text_reminders: 0, use_records: 0, session_cancel: 0, ace: 0, hide_costs: 0, username: null, email: null,
    },
  ];
}

export function demoClients(seed: number): ClientRecord[] {
  const rng = createPrng(seed);
  const clients = notableClients(rng);
  // The generated names never include John Smith, so a name lookup for it has exactly clients 3 and 4.
  for (let id = clients.length + 1; id <= DEMO_CLIENT_COUNT; id++) clients.push(generatedClient(rng, id));
  return clients;
}

// Staff: fixed names and priorities so the team listing order (priority, then first name) is known.
// Priority 5 is shared by six people whose id order differs from their name order.
const STAFF_PEOPLE: readonly (readonly [first: string, last: string, priority: number, status: string])[] = [
  ['Olivia', 'Bennett', 5, 'active'], ['Noah', 'Carter', 1, 'active'], ['Emma', 'Diaz', 5, 'active'],
  ['Liam', 'Evans', 10, 'active'], ['Ava', 'Foster', 3, 'active'], ['Ethan', 'Gray', 5, 'inactive'],
  ['Sophia', 'Hughes', 10, 'active'], ['Mason', 'Irwin', 2, 'active'], ['Isabella', 'James', 10, 'contactList'],
  ['Lucas', 'Kim', 20, 'active'], ['Mia', 'Lopez', 5, 'active'], ['Logan', 'Meyer', 50, 'active'],
  ['Amelia', 'Nash', 1, 'active'], ['Elijah', 'Ortiz', 100, 'doNotHire'], ['Harper', 'Price', 20, 'active'],
  ['James', 'Quinn', 10, 'active'], ['Evelyn', 'Reed', 3, 'active'], ['Benjamin', 'Stone', 50, 'inactive'],
  ['Abigail', 'Turner', 5, 'active'], ['Henry', 'Underwood', 20, 'active'], ['Emily', 'Vance', 100, 'active'],
  ['Alexander', 'Walsh', 10, 'active'], ['Ella', 'Xu', 2, 'active'], ['Daniel', 'Young', 30, 'contactList'],
  ['Scarlett', 'Zimmer', 30, 'active'], ['Matthew', 'Abbott', 5, 'active'], ['Grace', 'Baker', 1, 'active'],
  ['Jackson', 'Cole', 20, 'active'], ['Chloe', 'Dunn', 10, 'active'], ['Sebastian', 'Ellis', 50, 'active'],
];

/** The texts of one team page (staff or practitioners); how a profile is drawn from them is shared. */
interface TeamTexts {
  headshotPrefix: string;
  note: string;
  positions: readonly string[];
  excerpts: readonly (string | null)[];
}

const STAFF_TEXTS: TeamTexts = {
  headshotPrefix: 'staff',
  note: 'Keys to the back office',
  positions: ['Office Manager', 'Scheduler', 'Billing Specialist', 'Front Desk', 'Director', 'Marketing Lead'],
  excerpts: [
    '<p>Keeps the schedule <strong>running</strong> smoothly.</p>',
    'Ask me about billing & payment plans.',
    '<p>Ten years with the team; loves <em>spreadsheets</em>.</p>',
    'Friendly voice on the phone.',
    null,
  ],
};

/** headshot_url the way the earlier API had it: a file name, an empty string or "blank.png". */
function headshot(rng: Prng, id: number, prefix: string): string | null {
  const roll = id % 6;
  if (roll === 0) return '';
  if (roll === 3) return 'blank.png';
  return `${prefix}-${String(id)}-${String(rng.int(1000, 9999))}.jpg`;
}

/** The profile fields of a team member, drawn in reply order; without `hasHeadshot` headshot_url is null. */
function teamProfile(rng: Prng, id: number, priority: number | null, texts: TeamTexts, hasHeadshot = true): TeamProfile {
  return {
    notes: rng.chance(0.2) ? texts.note : null,
    position: rng.pick(texts.positions),
    excerpt: rng.pick(texts.excerpts),
    priority,
    headshot_url: hasHeadshot ? headshot(rng, id, texts.headshotPrefix) : null,
    send_welcome_message: flag(rng, 0.7),
  };
}

export function demoStaff(seed: number): StaffRecord[] {
  const rng = createPrng(seed);
  return STAFF_PEOPLE.map(([first, last, priority, status], index): StaffRecord => {
    const id = index + 1;
    const place = rng.pick(CITIES);
    const flags = Object.fromEntries(STAFF_PERMISSION_FLAGS.map((name) => [name, flag(rng, 0.4)])) as Record<
      StaffPermissionFlag,
      number
    >;
    return {
      object: 'staff',
      id,
      users_id: 1000 + id,
      staff_settings_id: 500 + id,
      admin_id: ADMIN_ID,
      first_name: first,
      last_name: last,
      address1: `${String(rng.int(1, 999))} ${rng.pick(STREETS)}`,
      address2: rng.chance(0.2) ? `Suite ${String(rng.int(100, 400))}` : null,
      ...place,
      p_phone: phone(rng),
      s_phone: rng.chance(0.3) ? phone(rng) : null,
      text_phone: rng.chance(0.5) ? phone(rng) : null,
      email: id % 10 === 4 ? `${first.toLowerCase()}@studio.example.com, ${first.toLowerCase()}.${last.toLowerCase()}@gmail.example.com` : `${first.toLowerCase()}@studio.example.com`,
      status,
      calendar_color: rng.pick(COLORS),
      hire_date: addDays('2012-02-01', rng.int(0, 4000)),
      wage_tier: rng.pick([1, 2]),
      ...teamProfile(rng, id, priority, STAFF_TEXTS),
      s_staff: rng.int(0, 3),
      s_timesheets: rng.int(0, 7),
      s_session_control: rng.int(0, 2),
      s_products: rng.int(0, 3),
      s_records: rng.int(0, 3),
      ...flags,
    };
  });
}

// Practitioners: priorities with ties (two "Maria"s share priority 10) and two without a priority.
const PRACT_PEOPLE: readonly (readonly [first: string, last: string, priority: number | null, status: string])[] = [
  ['Rosa', 'Alvarez', 10, 'active'], ['Ben', 'Okoro', 1, 'active'], ['Maria', 'Santos', 10, 'active'],
  ['Kenji', 'Watanabe', 5, 'active'], ['Élodie', 'Laurent', 5, 'active'], ['Tom', 'Becker', 20, 'inactive'],
  ['Amara', 'Mensah', 2, 'active'], ['Luis', 'Fernandez', 10, 'active'], ['Hannah', 'Schmidt', null, 'active'],
  ['Devi', 'Raman', 5, 'active'], ['Owen', 'Fitzgerald', 50, 'contactList'], ['Carla', 'Rossi', 1, 'active'],
  ['Maria', 'Keller', 10, 'active'], ['Yusuf', 'Demir', 30, 'active'], ['Nina', 'Petrova', 3, 'active'],
  ['Adam', 'Novak', 5, 'doNotHire'], ['Beatriz', 'Costa', 20, 'active'], ['Sam', 'Taylor', 100, 'active'],
  ['Ivy', 'Chen', 2, 'active'], ['Felix', 'Wagner', null, 'inactive'], ['Zara', 'Ahmed', 10, 'active'],
  ['Leo', 'Moreau', 3, 'active'], ['Grace', 'Oyelaran', 50, 'active'], ['Chris', "D'Angelo", 20, 'active'],
  ['Anna', 'Berg', 10, 'active'],
];
const PRACT_TEXTS: TeamTexts = {
  headshotPrefix: 'pract',
  note: 'Prefers morning sessions',
  positions: ['Swim Instructor', 'Piano Teacher', 'Math Tutor', 'Speech Therapist', 'Reading Specialist', 'SAT Coach'],
  excerpts: [
    '<p>Certified lifeguard and <strong>WSI</strong> instructor.</p>',
    'Twelve years of teaching & performing.',
    '<p>Makes algebra <em>fun</em>.</p>',
    'Patient, calm and encouraging.',
    null,
  ],
};

export function demoPractitioners(seed: number): PractitionerRecord[] {
  const rng = createPrng(seed);
  return PRACT_PEOPLE.map(([first, last, priority, status], index): PractitionerRecord => {
    const id = index + 1;
    const place = rng.pick(CITIES);
    const availBase = 30 + id * 2;
    return {
      object: 'practitioner',
      id,
      pract_settings_id: 700 + id,
      users_id: 2000 + id,
      admin_id: ADMIN_ID,
      avail_id: id % 3 === 0 ? `${String(availBase)},${String(availBase + 1)}` : String(availBase),
      first_name: first,
      last_name: last,
      address1: id % 8 === 0 ? null : `${String(rng.int(1, 999))} ${rng.pick(STREETS)}`,
      address2: rng.chance(0.2) ? `Unit ${String(rng.int(1, 30))}` : null,
      ...place,
      p_phone: phone(rng),
      s_phone: rng.chance(0.3) ? phone(rng) : null,
      text_phone: rng.chance(0.15) ? `${phone(rng)}, ${phone(rng)}` : phone(rng),
      email: `${asciiSlug(first)}.${asciiSlug(last)}@team.example.com`,
      status,
      calendar_color: rng.pick(COLORS),
      hire_date: id === 20 ? null : addDays('2014-06-01', rng.int(0, 3500)),
      wage_tier: rng.int(0, 2),
      add_value: id === 9 ? null : rng.pick([0, 5, 7.25, 12.5, 15, 20.75]),
      // Practitioner 9 is the one with empty fields: no add_value, priority or headshot.
      ...teamProfile(rng, id, priority, PRACT_TEXTS, id !== 9),
      send_lesson_reminders: flag(rng, 0.7),
      text_reminders: flag(rng, 0.4),
      see_clients_information: flag(rng, 0.6),
      team_assess: flag(rng, 0.3),
      see_other_appointments: flag(rng, 0.5),
      can_reconcile_duration: flag(rng, 0.3),
      set_breaks: flag(rng, 0.5),
      multi_practs: flag(rng, 0.2),
      online_booking: flag(rng, 0.7),
      see_costs_wages: rng.int(0, 2),
      set_session_control: rng.int(0, 4),
      use_records: rng.int(0, 3),
    };
  });
}
