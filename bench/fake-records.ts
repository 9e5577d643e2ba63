// The bench's v1 data: client and practitioner records as the fake v1 serves them, and a v1 list page of
// them as text. Shared by the fake v1 server and the in-process translation floor, so that both measure
// the same bytes. Pure.

const CITIES = ['Springfield', 'Riverside', 'Fairview', 'Madison', 'Georgetown'];

export function client(id: number): Record<string, unknown> {
  return {
    object: 'client',
    id,
    first_name: `First${id}`,
    last_name: `Last${id}`,
    address1: `${id} Main Street`,
    address2: id % 3 === 0 ? `Suite ${id % 50}` : null,
    city: CITIES[id % CITIES.length],
    state: 'IL',
    zipcode: String(60000 + (id % 999)),
    country: 'US',
    p_phone: `555-01${String(id % 100).padStart(2, '0')}`,
    s_phone: null,
    text_phone: id % 2 === 0 ? `555-02${String(id % 100).padStart(2, '0')}` : null,
    email: `client${id}@example.com`,
    username: `client${id}`,
    status: 'active',
    hide_costs: false,
    use_records: true,
    timezone: 'America/Chicago',
    created_at: '2024-01-02T03:04:05Z',
    updated_at: '2024-06-07T08:09:10Z',
  };
}

export function practitioner(id: number): Record<string, unknown> {
  return {
    object: 'practitioner',
    id,
    admin_id: 1,
    pract_settings_id: id,
    first_name: `Name${(id * 7919) % 1000}`,
    last_name: `Family${id}`,
    position: 'Therapist',
    excerpt: 'Ten years of practice, specialising in the things a fake upstream can specialise in.',
    priority: id % 7,
    headshot_url: `https://cdn.example.com/headshots/${id}.jpg`,
  };
}

/** One v1 list page (`offset`, `limit`) of a resource holding `total` records, as v1 writes it. */
export function listText(total: number, offset: number, limit: number, make: (id: number) => Record<string, unknown>): string {
  const data = [];
  for (let id = offset + 1; id <= Math.min(total, offset + limit); id++) data.push(make(id));
  return JSON.stringify({ object: 'list', total, limit, offset, has_more: offset + limit < total, data });
}
