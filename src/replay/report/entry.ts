// What the replay says about one recorded call, in the shape every report uses (the JSON report's
// `entries[]`), and the one function that makes such an entry safe to show.
// Pure: must never do I/O. Every entry that reaches a report, stdout or a log has been through
// redactReportEntry; nothing else builds report entries from recorded data.
import type { ReplayDifference } from './replay-difference.js';
import { redactDifferenceValue, redactUrl, type SecretScrubber } from '../../shared/redact.js';
import { redactReportBody, type ReportBodies } from './body.js';
import { redactRequestView, type RequestView } from '../recordings/request-view.js';
import type { SkipReason } from '../run/safety.js';

/**
 * `not-comparable`: never sent, the recording cannot be replayed faithfully (a secret kept only as the
 * redaction marker). A `different` entry whose every difference has `cause` is counted apart in the
 * summary (summary.ts), not as a gateway difference.
 */
export const OUTCOMES = ['identical', 'different', 'skipped', 'error', 'not-comparable'] as const;
export type Outcome = (typeof OUTCOMES)[number];

interface EntryFields {
  /** 0-based position in the recording. */
  index: number;
  /** HTTP method of the recorded call. */
  method: string;
  url: string;
  /** `clients`, `session`, `payment`... (see recordings/legacy-method.ts). */
  legacyMethod: string;
  diffs: ReplayDifference[];
  /** Recorded and replayed HTTP status, when the call was replayed. */
  status?: { expected: number; actual: number };
  /** Why the call could not be replayed (connection refused, timeout). */
  error?: string;
  /** The recorded request's body and key header: on `different` and `error` entries. */
  request?: RequestView;
  /** Both whole replies: on `different` entries. */
  bodies?: ReportBodies;
}

export type ReportEntry = EntryFields &
  (
    | {
        outcome: Exclude<Outcome, 'not-comparable'>;
        /** Why the call was skipped. */
        reason?: SkipReason;
      }
    | {
        outcome: 'not-comparable';
        /** Why it cannot be compared: `redacted in the recording: token` (field names, never values). */
        reason: string;
      }
  );

export function redactReportEntry(entry: ReportEntry, scrubber: SecretScrubber): ReportEntry {
  const out: ReportEntry = {
    ...entry,
    url: scrubber.scrub(redactUrl(entry.url)),
    diffs: entry.diffs.map((d) => {
      const safe: ReplayDifference = { path: scrubber.scrub(d.path), kind: d.kind };
      if (d.expected !== undefined) safe.expected = redactDifferenceValue(d.path, d.expected, scrubber);
      if (d.actual !== undefined) safe.actual = redactDifferenceValue(d.path, d.actual, scrubber);
      if (d.cause !== undefined) safe.cause = d.cause;
      return safe;
    }),
  };
  if (entry.error !== undefined) out.error = scrubber.scrub(redactUrl(entry.error));
  if (entry.request !== undefined) out.request = redactRequestView(entry.request, scrubber);
  if (entry.bodies !== undefined) {
    out.bodies = { recorded: redactReportBody(entry.bodies.recorded, scrubber), gateway: redactReportBody(entry.bodies.gateway, scrubber) };
  }
  return out;
}
