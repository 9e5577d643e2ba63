// Demo sessions: 500 appointments through 2024 from a seeded PRNG, all in America/Chicago.
// Deterministic: it must never read the clock or Math.random. Ids, clients, practitioners and services it
// refers to exist in the other demo files (clients 1-300, practitioners 1-25, the non-package services).
import { addDays, timeOfMinutes } from './calendar.js';
import { DEMO_CLIENT_COUNT } from './demo-people.js';
import { createPrng } from './prng.js';
import type { SessionRecord } from './records.js';

export const DEMO_SESSION_COUNT = 500;
export const DEMO_SESSION_TIMEZONE = 'America/Chicago';

/** Non-package services (group_num 1) that sessions are booked for, with a label. */
const BOOKABLE: readonly (readonly [serviceId: number, label: string])[] = [
  [1, 'Private Swim Lesson'], [4, 'Piano Lesson'], [5, 'Math Tutoring'], [6, 'Group Swim Class'],
  [7, 'Initial Assessment'], [8, 'Speech Therapy'], [9, 'Reading Tutoring'], [10, 'SAT Prep'],
];
const GROUP_CLASS_SERVICE = 6;
/** Sessions before this date have happened: saved, canceled or missed; later ones are open. */
const PAST_BEFORE = '2024-09-01';
const NOTES = ['Bring goggles', 'Worked on scales & arpeggios', 'Review chapter 4', 'Parent will attend', 'Quiz: "fractions"'];

export function demoSessions(seed: number): SessionRecord[] {
  const rng = createPrng(seed);
  const sessions: SessionRecord[] = [];
  for (let id = 1; id <= DEMO_SESSION_COUNT; id++) {
    const [serviceId, label] = rng.pick(BOOKABLE);
    const isClass = serviceId === GROUP_CLASS_SERVICE;
    // Ids follow dates, as they would for sessions booked in order across the year.
    const date = addDays('2024-01-02', Math.floor(((id - 1) * 364) / DEMO_SESSION_COUNT));
    const startMinutes = 8 * 60 + rng.int(0, 23) * 30;
    const length = rng.pick([30, 45, 60, 90]);
    const past = date < PAST_BEFORE;
    const statusRoll = rng.next();
    const status = !past ? 0 : statusRoll < 0.8 ? 3 : statusRoll < 0.92 ? 1 : 2;
    const recurring = rng.chance(0.3);
    const practId = rng.int(1, 25);
    const clientId = id <= 12 ? ((id - 1) % 3) + 1 : rng.int(1, DEMO_CLIENT_COUNT);
    sessions.push({
      object: 'session',
      id,
      confirmed: status === 0 && rng.chance(0.3) ? 0 : 1,
      multi: isClass ? 1 : 0,
      slots: isClass ? 6 : 1,
      class_id: isClass ? 100 + (id % 5) : null,
      display: isClass ? (rng.chance(0.8) ? 1 : 0) : 0,
      pract_id: practId,
      wage_id: 5000 + id,
      client_id: clientId,
      client_due_id: 9000 + id,
      // A client who left a group class: "client_id|client_dues_id|temp_session_id" entries.
      cancel_clients: isClass && rng.chance(0.25) ? `${String(rng.int(1, DEMO_CLIENT_COUNT))}|${String(8000 + id)}|${String(id + 1)}` : null,
      temp: id % 97 === 0 ? String(id - 1) : '0',
      service_id: serviceId,
      location_id: rng.int(1, 3),
      recurr_id: recurring ? 300 + (practId % 10) : null,
      recurr_on: recurring ? 1 : 0,
      qb_invoice_id: status === 3 && rng.chance(0.4) ? `INV-${String(10000 + id)}` : null,
      session_status: status,
      custom_map_id: rng.chance(0.1) ? rng.int(1, 4) : null,
      session_reminder: past ? 1 : rng.chance(0.5) ? 1 : 0,
      session_sms: rng.chance(0.3) ? 1 : 0,
      session_description: isClass ? `${label} (Level ${String(rng.int(1, 3))})` : label,
      session_date: date,
      session_start_time: timeOfMinutes(startMinutes),
      session_end_time: timeOfMinutes(startMinutes + length),
      session_note: rng.chance(0.2) ? rng.pick(NOTES) : null,
      session_private_note: rng.chance(0.1) ? 'Check payment <before> next visit' : null,
      session_other_note: isClass && rng.chance(0.5) ? '<p>Open to new swimmers &mdash; sign up online!</p>' : null,
      assessment_moderation: rng.chance(0.1) ? 1 : 0,
      assessment_present: serviceId === 7 ? 1 : 0,
      timezone: DEMO_SESSION_TIMEZONE,
    });
  }
  return sessions;
}
