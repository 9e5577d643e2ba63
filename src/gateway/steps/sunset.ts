// Step: with LEGACY_SUNSET, every reply of the legacy surface (a translated read, the payment, and the
// legacy-shaped errors the gateway answers on their routes, the request guard's included) says when it goes
// away and where its successor is documented: `Sunset` (RFC 8594, an HTTP-date), `Deprecation` (RFC 9745,
// `@<unix seconds>`: LEGACY_DEPRECATED_AT, else the gateway's start) and, with LEGACY_DOCS_URL, `Link` to the
// v1 documentation (rel="deprecation" and rel="sunset"). Passthrough replies (v1's own) and the gateway's
// /healthz and /readyz never carry them. Before the guard: its refusals carry them too.
import type { Step } from './step.js';

export interface SunsetSettings {
  /** LEGACY_SUNSET. */
  legacySunset: Date;
  /** LEGACY_DEPRECATED_AT; undefined: `startedAt`. */
  legacyDeprecatedAt?: Date | undefined;
  /** LEGACY_DOCS_URL (already serialized by the settings' schema). */
  legacyDocsUrl?: string | undefined;
}

/** The headers every legacy reply carries: name (lower case) and value. */
export type SunsetHeaders = ReadonlyArray<readonly [string, string]>;

/** The headers every legacy reply carries, built once. */
export function sunsetHeaders(settings: SunsetSettings, startedAt: Date = new Date()): SunsetHeaders {
  const deprecatedAt = settings.legacyDeprecatedAt ?? startedAt;
  const headers: Array<readonly [string, string]> = [
    ['sunset', settings.legacySunset.toUTCString()],
    ['deprecation', `@${Math.floor(deprecatedAt.getTime() / 1000)}`],
  ];
  const docs = settings.legacyDocsUrl;
  if (docs !== undefined) headers.push(['link', `<${docs}>; rel="deprecation", <${docs}>; rel="sunset"`]);
  return headers;
}

export function sunsetStep(headers: SunsetHeaders): Step {
  return {
    name: 'sunset',
    handle({ route, res }, next) {
      if (route.kind === 'read' || route.kind === 'payment') for (const [name, value] of headers) res.setHeader(name, value);
      next();
    },
  };
}
