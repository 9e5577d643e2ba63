// The minimal reshaper's whole translation, without its server: a v1 client list page's text in, the legacy
// list's text out, by JSON.parse, a map to the legacy list fields with String(), and JSON.stringify. No
// validation, no cache, no logging: the least code that gives the legacy reply. Pure.

/** The legacy client list record's fields, in order, each read from v1 under the same name. */
const FIELDS = [
  'id', 'users_id', 'client_settings_id', 'avail_id', 'first_name', 'last_name', 'address1', 'address2',
  'city', 'state', 'zipcode', 'country', 'p_phone', 's_phone', 'text_phone', 'email',
] as const;

export interface V1ListPage {
  total: number;
  data: Array<Record<string, unknown>>;
}

/** The legacy reply's text of one parsed v1 page. */
export function reshapeList(list: V1ListPage): string {
  const response = list.data.map((r) => {
    const out: Record<string, string | null> = {};
    for (const field of FIELDS) out[field] = r[field] === null || r[field] === undefined ? null : String(r[field]);
    return out;
  });
  return JSON.stringify({ status: 'success', total: String(list.total), response });
}
