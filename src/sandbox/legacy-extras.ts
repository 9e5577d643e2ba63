// The two non-API paths the old service still serves and the gateway passes through unchanged: the blank
// headshot picture and the on-demand booking link. Kept minimal; it must never need an API key, and the
// link token must be deterministic (same input, same link) so replies can be compared byte for byte.
import { createHmac } from 'node:crypto';
import type { Request, Response } from 'express';
import { sendJson } from './errors.js';

export const BLANK_HEADSHOT_PATH = '/assets/backend/images/headshots/blank.png';

/** A 1x1 transparent PNG. */
export const BLANK_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR42mNgAAIAAAUAAen63NgAAAAASUVORK5CYII=',
  'base64',
);

// Not a secret: it only makes the sandbox's link tokens look opaque while staying reproducible.
const LINK_TOKEN_SALT = 'legacy-gateway-sandbox-ondemand';

/** The shareable form link for one student and agent pair: `${origin}/ondemand/form?t=<token>`. */
export function onDemandLink(origin: string, identifier: string, primaryAgentId: string, secondaryAgentId: string): string {
  const token = createHmac('sha256', LINK_TOKEN_SALT)
    .update(JSON.stringify([identifier, primaryAgentId, secondaryAgentId]))
    .digest('base64url');
  return `${origin}/ondemand/form?t=${token}`;
}

export function sendBlankHeadshot(_req: Request, res: Response): void {
  res.status(200).setHeader('Content-Type', 'image/png');
  res.setHeader('Cache-Control', 'public, max-age=86400');
  res.send(BLANK_PNG);
}

/** GET /ondemand/:ident/:primary/:secondary, answered in the earlier API's shape. */
export function sendOnDemandLink(req: Request, res: Response, origin: string): void {
  const { ident, primary, secondary } = req.params;
  if (typeof ident !== 'string' || typeof primary !== 'string' || typeof secondary !== 'string' || !/^\d+$/.test(primary) || !/^\d+$/.test(secondary)) {
    sendJson(res, 400, { status: 'failure', response: 'primary_agent_id and secondary_agent_id must be integers' });
    return;
  }
  sendJson(res, 200, { status: 'success', response: onDemandLink(origin, ident, primary, secondary) });
}
