// The v1 record shapes the sandbox serves: one interface and one field-order list per resource, the person
// records built from the blocks they share (address, contact, team employment and profile). The field lists
// are the contract the gateway's mapping files are written against, so their order is the reply order.
// This module must never hold data or behaviour: shapes only.

/** Integers and decimals are numbers, everything else a string; an empty value is null (v1 record rules). */
type Text = string | null;
type Num = number | null;

/**
 * Returns the list unchanged, but fails to compile when it omits a field of T: a field added to an
 * interface and forgotten in its order list would otherwise silently vanish from every reply.
 */
function completeFieldList<T>() {
  return <const L extends readonly (keyof T & string)[]>(
    fields: L,
    ..._missing: [Exclude<keyof T, L[number]>] extends [never] ? [] : [missing: Exclude<keyof T, L[number]>]
  ): L => fields;
}

/** A postal address, in the order every record that has one lists it. */
export interface PostalAddress {
  address1: Text;
  address2: Text;
  city: Text;
  state: Text;
  zipcode: Text;
  country: Text;
}

const POSTAL_ADDRESS_FIELDS = completeFieldList<PostalAddress>()([
  'address1', 'address2', 'city', 'state', 'zipcode', 'country',
]);

/** Name, address and phone numbers: the block every person record (client, staff, practitioner) shares. */
export interface PersonContact extends PostalAddress {
  first_name: Text;
  last_name: Text;
  p_phone: Text;
  s_phone: Text;
  text_phone: Text;
}

const PERSON_CONTACT_FIELDS = completeFieldList<PersonContact>()([
  'first_name', 'last_name', ...POSTAL_ADDRESS_FIELDS, 'p_phone', 's_phone', 'text_phone',
]);

/** What staff and practitioners share after their contact block: e-mail, status and employment. */
export interface TeamEmployment {
  email: Text;
  status: Text;
  calendar_color: Text;
  hire_date: Text;
  wage_tier: Num;
}

const TEAM_EMPLOYMENT_FIELDS = completeFieldList<TeamEmployment>()([
  'email', 'status', 'calendar_color', 'hire_date', 'wage_tier',
]);

/** What staff and practitioners share after their pay fields: the profile the team pages show. */
export interface TeamProfile {
  notes: Text;
  position: Text;
  excerpt: Text;
  priority: Num;
  headshot_url: Text;
  send_welcome_message: Num;
}

const TEAM_PROFILE_FIELDS = completeFieldList<TeamProfile>()([
  'notes', 'position', 'excerpt', 'priority', 'headshot_url', 'send_welcome_message',
]);

export interface ClientRecord extends PersonContact {
  object: 'client';
  id: number;
  dob: Text;
  status: Text;
  inactive_date: Text;
  inactive_reason: Text;
  start_date: Text;
  notes: Text;
  timezone: Text;
  send_welcome_message: Num;
  send_lesson_reminders: Num;
  add_session: Num;
  see_practs_information: Num;
  text_reminders: Num;
  use_records: Num;
  session_cancel: Num;
  ace: Num;
  hide_costs: Num;
  username: Text;
  email: Text;
}

export const CLIENT_FIELDS = completeFieldList<ClientRecord>()([
  'object', 'id', ...PERSON_CONTACT_FIELDS, 'dob', 'status', 'inactive_date', 'inactive_reason', 'start_date', 'notes',
  'timezone', 'send_welcome_message', 'send_lesson_reminders', 'add_session', 'see_practs_information',
  'text_reminders', 'use_records', 'session_cancel', 'ace', 'hide_costs', 'username', 'email',
]);

/** The 0/1 staff permission flags, in reply order (they follow s_records). */
export const STAFF_PERMISSION_FLAGS = [
  's_practs', 's_wages', 's_deductions', 's_skills', 's_clients', 's_assess', 's_scheduling', 's_revenues',
  's_balances', 's_invoices', 's_expenses', 's_services', 's_taxes', 's_reconcile_duration', 's_costs_wages',
  's_locations', 's_import', 's_langtrans', 's_notif', 'pract_mass_email', 'client_mass_email', 'staff_mass_email',
  's_email_history', 's_tasks', 's_branding', 's_permissions', 's_leads', 's_sms', 's_breaks', 's_cancels',
  's_conflicts', 's_custom_sessions', 's_docs', 's_security',
] as const;
export type StaffPermissionFlag = (typeof STAFF_PERMISSION_FLAGS)[number];

export type StaffRecord = {
  object: 'staff';
  id: number;
  users_id: Num;
  staff_settings_id: Num;
  admin_id: Num;
  s_staff: Num;
  s_timesheets: Num;
  s_session_control: Num;
  s_products: Num;
  s_records: Num;
} & PersonContact &
  TeamEmployment &
  TeamProfile &
  Record<StaffPermissionFlag, Num>;

export const STAFF_FIELDS = completeFieldList<StaffRecord>()([
  'object', 'id', 'users_id', 'staff_settings_id', 'admin_id', ...PERSON_CONTACT_FIELDS, ...TEAM_EMPLOYMENT_FIELDS,
  ...TEAM_PROFILE_FIELDS, 's_staff', 's_timesheets', 's_session_control', 's_products', 's_records',
  ...STAFF_PERMISSION_FLAGS,
]);

export interface PractitionerRecord extends PersonContact, TeamEmployment, TeamProfile {
  object: 'practitioner';
  id: number;
  pract_settings_id: Num;
  users_id: Num;
  admin_id: Num;
  /** Comma-separated availability ids: the first is the default schedule. A string in v1 too. */
  avail_id: Text;
  add_value: Num;
  send_lesson_reminders: Num;
  text_reminders: Num;
  see_clients_information: Num;
  team_assess: Num;
  see_other_appointments: Num;
  can_reconcile_duration: Num;
  set_breaks: Num;
  multi_practs: Num;
  online_booking: Num;
  see_costs_wages: Num;
  set_session_control: Num;
  use_records: Num;
}

export const PRACTITIONER_FIELDS = completeFieldList<PractitionerRecord>()([
  'object', 'id', 'pract_settings_id', 'users_id', 'admin_id', 'avail_id', ...PERSON_CONTACT_FIELDS,
  ...TEAM_EMPLOYMENT_FIELDS, 'add_value', ...TEAM_PROFILE_FIELDS, 'send_lesson_reminders', 'text_reminders',
  'see_clients_information', 'team_assess', 'see_other_appointments', 'can_reconcile_duration', 'set_breaks',
  'multi_practs', 'online_booking', 'see_costs_wages', 'set_session_control', 'use_records',
]);

export interface ServiceRecord {
  object: 'service';
  id: number;
  group_id: Num;
  /** Sessions in this tier; above 1 the service is a package, which the API refuses to take payment for. */
  group_num: Num;
  name: Text;
  service_description: Text;
  service_cost: Num;
  service_default_wage: Num;
  service_taxable: Num;
  service_type: Num;
  service_status: Num;
  online_booking: Num;
  min_duration: Num;
  max_duration: Num;
  /** "0" none, "1" top of the hour, "2" half past: a string in v1, as it was in the earlier API. */
  start_interval: Text;
}

export const SERVICE_FIELDS = completeFieldList<ServiceRecord>()([
  'object', 'id', 'group_id', 'group_num', 'name', 'service_description', 'service_cost', 'service_default_wage',
  'service_taxable', 'service_type', 'service_status', 'online_booking', 'min_duration', 'max_duration',
  'start_interval',
]);

export interface SessionRecord {
  object: 'session';
  id: number;
  confirmed: Num;
  multi: Num;
  slots: Num;
  class_id: Num;
  display: Num;
  pract_id: Num;
  wage_id: Num;
  client_id: Num;
  client_due_id: Num;
  cancel_clients: Text;
  /** "0" when not temporary, else the id of the original session: a string, as in the earlier API. */
  temp: Text;
  service_id: Num;
  location_id: Num;
  recurr_id: Num;
  recurr_on: Num;
  qb_invoice_id: Text;
  session_status: Num;
  custom_map_id: Num;
  session_reminder: Num;
  session_sms: Num;
  session_description: Text;
  session_date: Text;
  session_start_time: Text;
  session_end_time: Text;
  session_note: Text;
  session_private_note: Text;
  session_other_note: Text;
  assessment_moderation: Num;
  assessment_present: Num;
  timezone: Text;
}

export const SESSION_FIELDS = completeFieldList<SessionRecord>()([
  'object', 'id', 'confirmed', 'multi', 'slots', 'class_id', 'display', 'pract_id', 'wage_id', 'client_id',
  'client_due_id', 'cancel_clients', 'temp', 'service_id', 'location_id', 'recurr_id', 'recurr_on', 'qb_invoice_id',
  'session_status', 'custom_map_id', 'session_reminder', 'session_sms', 'session_description', 'session_date',
  'session_start_time', 'session_end_time', 'session_note', 'session_private_note', 'session_other_note',
  'assessment_moderation', 'assessment_present', 'timezone',
]);

export interface DiscountRecord {
  object: 'discount';
  id: number;
  code: Text;
  description: Text;
  amount_type: 'percent' | 'fixed' | null;
  amount: Num;
  /** null: any service; an id: valid only when paying for that service. */
  service_id: Num;
  status: 'active' | 'inactive' | null;
  max_uses: Num;
  uses: Num;
}

export const DISCOUNT_FIELDS = completeFieldList<DiscountRecord>()([
  'object', 'id', 'code', 'description', 'amount_type', 'amount', 'service_id', 'status', 'max_uses', 'uses',
]);

export interface TimezoneRecord {
  object: 'timezone';
  id: number;
  name: Text;
  utc_offset: Text;
}

export const TIMEZONE_FIELDS = completeFieldList<TimezoneRecord>()(['object', 'id', 'name', 'utc_offset']);

export interface PaymentRecord {
  object: 'payment';
  id: number;
  client_id: Num;
  service_id: Num;
  amount: Num;
  discount_code: Text;
  note: Text;
  send_email: Num;
  timezone: Text;
  status: Text;
  created: Text;
}

export const PAYMENT_FIELDS = completeFieldList<PaymentRecord>()([
  'object', 'id', 'client_id', 'service_id', 'amount', 'discount_code', 'note', 'send_email', 'timezone', 'status',
  'created',
]);

export interface LocationRecord extends PostalAddress {
  object: 'location';
  id: number;
  name: Text;
  phone: Text;
  email: Text;
  /** Comma-separated ids of the practitioners working there. */
  pract_ids: Text;
  status: Text;
}

export const LOCATION_FIELDS = completeFieldList<LocationRecord>()([
  'object', 'id', 'name', ...POSTAL_ADDRESS_FIELDS, 'phone', 'email', 'pract_ids', 'status',
]);

export interface SkillRecord {
  object: 'skill';
  id: number;
  name: Text;
  description: Text;
}

export const SKILL_FIELDS = completeFieldList<SkillRecord>()(['object', 'id', 'name', 'description']);

export interface PackageRecord {
  object: 'package';
  id: number;
  name: Text;
  service_id: Num;
  session_count: Num;
  price: Num;
  /** active and secret are payable, inactive is listed only, deleted is never returned (v1 record rule 8). */
  status: 'active' | 'secret' | 'inactive' | 'deleted' | null;
  expires_days: Num;
}

export const PACKAGE_FIELDS = completeFieldList<PackageRecord>()([
  'object', 'id', 'name', 'service_id', 'session_count', 'price', 'status', 'expires_days',
]);

/** A client's weekly availability window, sent on client creation; not part of the client record. */
export interface AvailabilityRecord {
  client_id: number;
  day: 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';
  start: string;
  end: string;
}
