// Names the legacy method of a recorded URL (`/api/clients/0/10` -> `clients`), the unit of the per-method
// summary, of report filters and of rules limited with `methods:`. The name is the one the gateway reads
// (shared/request-target.ts) from the path the replay sends: nothing is decoded or lower-cased, so a path
// the gateway does not read as a legacy method (`/api/Clients/0/5`, `/api/cl%69ents`) is `(other)` here too.
// Pure: must never do I/O.
import { parseLegacyPath } from '../../shared/request-target.js';
import { recordedPath } from '../run/safety.js';

/** `clients`, `client`, `payment`...; `v1` for /api/v1/** passthrough, `ondemand`, or `(other)`. */
export function legacyMethodOf(url: string): string {
  const p = recordedPath(url);
  if (p === undefined) return '(other)';
  const legacy = parseLegacyPath(p);
  if (legacy) return legacy.method;
  if (/^\/ondemand(\/|$)/.test(p)) return 'ondemand';
  return '(other)';
}
