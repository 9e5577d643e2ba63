// The two whole reply bodies a differing entry carries into the reports (recorded and gateway's), so a
// reviewer sees each difference in its place. A body is kept as compared, JSON or text, but always as a
// string (a parsed page of records takes several times its text's memory while the entry waits for its
// turn in the runner's window); one too large to show is kept as its size only.
// Pure: must never do I/O. A body holds recorded values until redactReportBody has been through it;
// nothing shows a body that did not.
import { parseJsonExact, stringifyExact, type JsonObject } from '../../shared/json-exact.js';
import { redactBodyText, redactJson, type SecretScrubber } from '../../shared/redact.js';
import type { ParsedBody } from '../../json-diff/reply-diff.js';

export type ReportBody =
  /** Exact JSON text (numbers as spelled); parse it with parseJsonExact. */
  | { kind: 'json'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'empty' }
  /** Larger than MAX_REPORT_BODY_CHARS: left out, its size kept. */
  | { kind: 'omitted'; chars: number };

export interface ReportBodies {
  recorded: ReportBody;
  gateway: ReportBody;
}

/**
 * Largest body (as JSON text) an entry keeps. A legacy page of 1,000 clients is about 400 KB; a bigger
 * reply is shown through its differences only. The runner holds a window of entries, so this bounds
 * its memory too.
 */
export const MAX_REPORT_BODY_CHARS = 512 * 1024;

/** The body as the reports keep it; `jsonText` is the JSON body's text when it came as text (else it is written). */
export function reportBody(body: ParsedBody, jsonText?: string): ReportBody {
  let kept: ReportBody;
  switch (body.kind) {
    case 'empty':
      return body;
    case 'text':
      kept = body;
      break;
    case 'json':
      kept = { kind: 'json', text: jsonText ?? stringifyExact(body.value) };
      break;
  }
  return kept.text.length > MAX_REPORT_BODY_CHARS ? { kind: 'omitted', chars: kept.text.length } : kept;
}

/** Secret fields by name (same JSON type kept), then every secret value of the recording wherever it is. */
export function redactReportBody(body: ReportBody, scrubber: SecretScrubber): ReportBody {
  switch (body.kind) {
    case 'json':
      return { kind: 'json', text: stringifyExact(scrubber.scrubJson(redactJson(parseJsonExact(body.text)))) };
    case 'text':
      return { kind: 'text', text: scrubber.scrub(redactBodyText(body.text, undefined)) };
    default:
      return body;
  }
}

/** Characters the body takes, for the HTML page's budget of bodies. */
export function reportBodyChars(body: ReportBody): number {
  return body.kind === 'json' || body.kind === 'text' ? body.text.length : 0;
}

function bodyJson(body: ReportBody): JsonObject {
  switch (body.kind) {
    case 'json':
      return { kind: 'json', value: parseJsonExact(body.text) };
    case 'text':
      return { kind: 'text', text: body.text };
    case 'empty':
      return { kind: 'empty' };
    case 'omitted':
      return { kind: 'omitted', chars: body.chars };
  }
}

/** The JSON report's `bodies`: `{"recorded":{"kind":"json","value":...},"gateway":{...}}`. */
export function reportBodiesJson(bodies: ReportBodies): JsonObject {
  return { recorded: bodyJson(bodies.recorded), gateway: bodyJson(bodies.gateway) };
}
