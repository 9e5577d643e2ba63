// Demo catalogue: services, discounts, time zones, locations, skills, packages and the opening payments.
// Fixed lists written out by hand, because tests and the gateway's golden fixtures name these ids.
// It must never read the clock: every date here is a literal.
import type {
  DiscountRecord,
  LocationRecord,
  PackageRecord,
  PaymentRecord,
  ServiceRecord,
  SkillRecord,
  TimezoneRecord,
} from './records.js';

type ServiceRow = Omit<ServiceRecord, 'object'>;

// Group 1 (services 1, 2, 3) and group 8 (services 10, 11) are tiered: group_num above 1 is a package.
const SERVICES: readonly ServiceRow[] = [
  { id: 1, group_id: 1, group_num: 1, name: 'Private Swim Lesson', service_description: 'One-to-one lesson in the teaching pool', service_cost: 45.5, service_default_wage: 20, service_taxable: 0, service_type: 0, service_status: 1, online_booking: 1, min_duration: 30, max_duration: 60, start_interval: '1' },
  { id: 2, group_id: 1, group_num: 5, name: 'Private Swim Lesson - 5 Pack', service_description: 'Five private lessons, paid up front', service_cost: 210, service_default_wage: 20, service_taxable: 0, service_type: 0, service_status: 1, online_booking: 1, min_duration: 30, max_duration: 60, start_interval: '1' },
  { id: 3, group_id: 1, group_num: 10, name: 'Private Swim Lesson - 10 Pack', service_description: 'Ten private lessons, paid up front', service_cost: 400, service_default_wage: 20, service_taxable: 0, service_type: 0, service_status: 1, online_booking: 0, min_duration: 30, max_duration: 60, start_interval: '1' },
  { id: 4, group_id: 2, group_num: 1, name: 'Piano Lesson', service_description: 'Beginner to advanced, bring your music', service_cost: 60, service_default_wage: 30, service_taxable: 0, service_type: 0, service_status: 1, online_booking: 1, min_duration: 45, max_duration: 60, start_interval: '2' },
  { id: 5, group_id: 3, group_num: 1, name: 'Math Tutoring', service_description: 'Algebra, geometry & calculus', service_cost: 72.25, service_default_wage: 35.5, service_taxable: 1, service_type: 0, service_status: 1, online_booking: 1, min_duration: 60, max_duration: 90, start_interval: '0' },
  { id: 6, group_id: 4, group_num: 1, name: 'Group Swim Class', service_description: 'Up to six swimmers per class', service_cost: 25, service_default_wage: 15, service_taxable: 0, service_type: 1, service_status: 1, online_booking: 1, min_duration: 45, max_duration: 45, start_interval: '1' },
  { id: 7, group_id: 5, group_num: 1, name: 'Initial Assessment', service_description: null, service_cost: 35, service_default_wage: 17.5, service_taxable: 0, service_type: 1, service_status: 1, online_booking: 0, min_duration: 30, max_duration: 30, start_interval: '0' },
  { id: 8, group_id: 6, group_num: 1, name: 'Speech Therapy', service_description: 'Sessions with a licensed "SLP"', service_cost: 95, service_default_wage: 50, service_taxable: 1, service_type: 0, service_status: 1, online_booking: 1, min_duration: 30, max_duration: 60, start_interval: '1' },
  { id: 9, group_id: 7, group_num: 1, name: 'Reading Tutoring', service_description: 'Reading & writing support <ages 6-12>', service_cost: 55.75, service_default_wage: 25, service_taxable: 0, service_type: 0, service_status: 1, online_booking: 1, min_duration: 45, max_duration: 60, start_interval: '2' },
  { id: 10, group_id: 8, group_num: 1, name: 'SAT Prep', service_description: 'Practice tests and strategy', service_cost: 80, service_default_wage: 40, service_taxable: 1, service_type: 0, service_status: 1, online_booking: 1, min_duration: 60, max_duration: 120, start_interval: '1' },
  { id: 11, group_id: 8, group_num: 5, name: 'SAT Prep - 5 Pack', service_description: 'Five SAT prep sessions', service_cost: 375, service_default_wage: 40, service_taxable: 1, service_type: 0, service_status: 1, online_booking: 0, min_duration: 60, max_duration: 120, start_interval: '1' },
  { id: 12, group_id: 9, group_num: 1, name: 'Yoga for Kids (retired)', service_description: 'No longer offered', service_cost: 30, service_default_wage: 12, service_taxable: 0, service_type: 1, service_status: 0, online_booking: 0, min_duration: 45, max_duration: 45, start_interval: '0' },
];

const DISCOUNTS: readonly Omit<DiscountRecord, 'object'>[] = [
  { id: 1, code: 'WELCOME10', description: '10% off any service', amount_type: 'percent', amount: 10, service_id: null, status: 'active', max_uses: null, uses: 3 },
  { id: 2, code: 'SWIM5', description: '$5 off a private swim lesson', amount_type: 'fixed', amount: 5, service_id: 1, status: 'active', max_uses: 100, uses: 12 },
  { id: 3, code: 'SUMMER2023', description: 'Summer 2023 promotion', amount_type: 'percent', amount: 15, service_id: null, status: 'inactive', max_uses: 50, uses: 50 },
  { id: 4, code: 'PIANO20', description: '20% off a piano lesson', amount_type: 'percent', amount: 20, service_id: 4, status: 'active', max_uses: null, uses: 0 },
  { id: 5, code: 'FULLUP', description: 'Launch offer, used up', amount_type: 'fixed', amount: 10, service_id: null, status: 'active', max_uses: 5, uses: 5 },
];

// Standard-time offsets: a fixed list, as the service publishes them, not computed from today's rules.
const TIMEZONES: readonly (readonly [name: string, offset: string])[] = [
  ['America/New_York', '-05:00'], ['America/Chicago', '-06:00'], ['America/Denver', '-07:00'],
  ['America/Phoenix', '-07:00'], ['America/Los_Angeles', '-08:00'], ['America/Anchorage', '-09:00'],
  ['Pacific/Honolulu', '-10:00'], ['America/Halifax', '-04:00'], ['America/St_Johns', '-03:30'],
  ['America/Toronto', '-05:00'], ['America/Vancouver', '-08:00'], ['America/Mexico_City', '-06:00'],
  ['America/Sao_Paulo', '-03:00'], ['Europe/London', '+00:00'], ['Europe/Paris', '+01:00'],
  ['Europe/Berlin', '+01:00'], ['Africa/Johannesburg', '+02:00'], ['Asia/Kolkata', '+05:30'],
  ['Asia/Tokyo', '+09:00'], ['Australia/Sydney', '+10:00'], ['UTC', '+00:00'],
];

const LOCATIONS: readonly Omit<LocationRecord, 'object'>[] = [
  { id: 1, name: 'Main Studio', address1: '100 Main St', address2: 'Floor 2', city: 'Springfield', state: 'IL', zipcode: '62701', country: 'US', phone: '(555) 200-1000', email: 'studio@studio.example.com', pract_ids: '2,3,4,5,8,12', status: 'active' },
  { id: 2, name: 'North Pool', address1: '45 Lakeview Dr', address2: null, city: 'Springfield', state: 'IL', zipcode: '62702', country: 'US', phone: '(555) 200-2000', email: null, pract_ids: '1,7,10,15', status: 'active' },
  { id: 3, name: 'Online', address1: null, address2: null, city: null, state: null, zipcode: null, country: null, phone: null, email: 'online@studio.example.com', pract_ids: '13,14,19,21,22,25', status: 'active' },
  { id: 4, name: 'Old Annex', address1: '9 Mill Rd', address2: null, city: 'Springfield', state: 'IL', zipcode: '62703', country: 'US', phone: null, email: null, pract_ids: null, status: 'inactive' },
];

const SKILLS: readonly Omit<SkillRecord, 'object'>[] = [
  { id: 1, name: 'Swimming', description: 'Water safety and stroke technique' },
  { id: 2, name: 'Piano', description: null },
  { id: 3, name: 'Mathematics', description: 'K-12 and college algebra' },
  { id: 4, name: 'Reading', description: 'Phonics & comprehension' },
  { id: 5, name: 'Speech', description: 'Articulation and fluency' },
  { id: 6, name: 'Test Prep', description: 'SAT, ACT' },
];

// Package 4 is deleted: kept in the state so tests can see it is never returned.
const PACKAGES: readonly Omit<PackageRecord, 'object'>[] = [
  { id: 1, name: 'Swim Starter', service_id: 1, session_count: 4, price: 170, status: 'active', expires_days: 90 },
  { id: 2, name: 'Swim Pro (members only)', service_id: 1, session_count: 12, price: 480, status: 'secret', expires_days: 365 },
  { id: 3, name: 'Piano Intro', service_id: 4, session_count: 3, price: 150, status: 'inactive', expires_days: 60 },
  { id: 4, name: 'Old Bundle', service_id: 5, session_count: 6, price: 390, status: 'deleted', expires_days: null },
];

const PAYMENTS: readonly Omit<PaymentRecord, 'object'>[] = [
  { id: 1, client_id: 1, service_id: 1, amount: 45.5, discount_code: null, note: 'First lesson', send_email: 1, timezone: 'America/New_York', status: 'completed', created: '2024-01-15' },
  { id: 2, client_id: 2, service_id: 4, amount: 48, discount_code: 'PIANO20', note: null, send_email: 0, timezone: 'America/New_York', status: 'completed', created: '2024-02-03' },
  { id: 3, client_id: 7, service_id: null, amount: 100, discount_code: null, note: 'Account credit', send_email: 1, timezone: 'America/Chicago', status: 'completed', created: '2024-03-22' },
  { id: 4, client_id: 3, service_id: 5, amount: 65.03, discount_code: 'WELCOME10', note: null, send_email: 1, timezone: 'America/New_York', status: 'completed', created: '2024-04-09' },
];

export function demoServices(): ServiceRecord[] {
  return SERVICES.map((s) => ({ object: 'service', ...s }));
}

export function demoDiscounts(): DiscountRecord[] {
  return DISCOUNTS.map((d) => ({ object: 'discount', ...d }));
}

export function demoTimezones(): TimezoneRecord[] {
  return TIMEZONES.map(([name, offset], i) => ({ object: 'timezone', id: i + 1, name, utc_offset: offset }));
}

export function demoLocations(): LocationRecord[] {
  return LOCATIONS.map((l) => ({ object: 'location', ...l }));
}

export function demoSkills(): SkillRecord[] {
  return SKILLS.map((s) => ({ object: 'skill', ...s }));
}

export function demoPackages(): PackageRecord[] {
  return PACKAGES.map((p) => ({ object: 'package', ...p }));
}

export function demoPayments(): PaymentRecord[] {
  return PAYMENTS.map((p) => ({ object: 'payment', ...p }));
}
