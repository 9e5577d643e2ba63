// Names the legacy method of a recorded URL (`/api/clients/0/10` -> `clients`), the unit of the per-method
// summary, of report filters and of rules limited with `methods:`.
// Pure: must never do I/O.
import { recordedPath } from './safety.js';

/** `clients`, `client`, `payment`...; `v1` for /api/v1/** passthrough, `ondemand`, or `(other)`. */
export function legacyMethodOf(url: string): string {
  const p = recordedPath(url);
  if (p === undefined) return '(other)';
  const api = /^\/api\/([^/]+)/i.exec(p);
  if (api) return decodeSegment(api[1] as string).toLowerCase();
  if (/^\/ondemand(\/|$)/i.test(p)) return 'ondemand';
  return '(other)';
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
