// What a caller refused by a brownout reads: the error (LGW_BROWNOUT, 410) with a message saying the old API
// is being retired, which window refused the call and until when, and where to read how to move to v1 (the
// integration's own migration guide under GUIDES_URL, else the v1 documentation, LEGACY_DOCS_URL), and
// Retry-After: the seconds left in the window. The Sunset, Deprecation and Link headers are the sunset step's.
import { GatewayError } from '../../shared/errors.js';
import { secondsToEnd, type Occurrence } from './brownout-windows.js';

export interface WhereToMove {
  /** GUIDES_URL: where the migration guides are published, one `<integration>.html` each. */
  guidesUrl?: string | undefined;
  /** LEGACY_DOCS_URL: the v1 documentation. */
  legacyDocsUrl?: string | undefined;
}

/** The page that tells this integration how to move: its guide under GUIDES_URL (the guides' index for a key
 * no integration names), else LEGACY_DOCS_URL; undefined when neither is set. */
export function guideUrl(where: WhereToMove, integration: string | undefined): string | undefined {
  if (where.guidesUrl !== undefined) {
    const base = where.guidesUrl.endsWith('/') ? where.guidesUrl : `${where.guidesUrl}/`;
    return integration === undefined ? base : new URL(`${encodeURIComponent(integration)}.html`, base).href;
  }
  return where.legacyDocsUrl;
}

/** `2027-01-12T15:00:00Z`: a moment as the brownouts file spells it. */
export const utcMoment = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

export function brownoutRefusal(o: Occurrence, at: number, where: WhereToMove, integration: string | undefined): GatewayError {
  const url = guideUrl(where, integration);
  const howToMove = url === undefined ? 'move to the v1 API' : `how to move to the v1 API: ${url}`;
  return new GatewayError(
    'LGW_BROWNOUT',
    `the old API is being retired: this call is refused during the scheduled brownout "${o.window.name}" until ${utcMoment(o.end)}; ${howToMove}`,
    { headers: { 'retry-after': String(secondsToEnd(o, at)) } },
  );
}
