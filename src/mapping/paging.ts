// Legacy `{start}/{limit}` path segments -> a v1 offset and limit. Pure.
// Bad input is refused here, before any upstream call is planned.

export interface Page {
  offset: number;
  limit: number;
}

export type PageResult = { ok: true; page: Page } | { ok: false; reason: string };

/** Whole numbers only, as the legacy paths spell them; 15 digits keeps them exact in a double. */
const WHOLE = /^\d{1,15}$/;

export function parsePage(
  segments: readonly string[],
  paging: { default: number; max: number },
): PageResult {
  if (segments.length > 2) return { ok: false, reason: 'too many path segments: expected /{start}/{limit}' };
  const [startText, limitText] = segments;
  let offset = 0;
  let limit = paging.default;
  if (startText !== undefined) {
    if (!WHOLE.test(startText)) return { ok: false, reason: 'start must be a whole number of 0 or more' };
    offset = Number(startText);
  }
  if (limitText !== undefined) {
    if (!WHOLE.test(limitText)) return { ok: false, reason: 'limit must be a whole number of 1 or more' };
    limit = Number(limitText);
    if (limit < 1) return { ok: false, reason: 'limit must be a whole number of 1 or more' };
  }
  return { ok: true, page: { offset, limit: Math.min(limit, paging.max) } };
}

/** An id path segment (`/api/staff/{id}`): a whole number, kept as text for the v1 path. */
export function parseId(segments: readonly string[]): { ok: true; id: string } | { ok: false; reason: string } {
  if (segments.length !== 1) return { ok: false, reason: 'expected exactly one id: /{id}' };
  const id = segments[0]!;
  if (!WHOLE.test(id)) return { ok: false, reason: 'the id must be a whole number' };
  return { ok: true, id: String(Number(id)) };
}
