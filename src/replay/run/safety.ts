// Decides, per recorded call, whether replaying it is safe, and if not, why it is skipped. Reads replay by
// default; writes only with --include-writes; a payment (POST /api/payment) only with --include-writes
// and a target that cannot charge a real card (the embedded sandbox or a loopback address), unless
// --allow-production-writes is also given. Other skip reasons: paths outside the legacy API surface (a
// browser HAR also holds pages, scripts and third-party calls) and replies the recording does not hold.
// A call whose recording holds a secret only as the redaction marker (recordings/redacted-secrets.ts) is
// never sent whatever the options: it is not comparable, a property of the recording the options cannot change.
// A call the recording shows refused for its key (HTTP 401, 403) is not comparable either: the recorded key
// is not in the file (a recording never keeps one in clear, and the replay never reuses one), so the replay
// would send its own key and compare v1's answer to another key. Unless --compare-key-refusals: then it is
// sent with the replay's key and compared as any other call (to check the gateway's refusals, with a key
// v1 refuses).
// Which call is the payment is the gateway's own rule (shared/request-target.ts), applied to the method
// and path as the replay sends them, so the replay guards exactly the calls the gateway would charge.
// Pure: must never do I/O; when in doubt it skips (an unknown HTTP method counts as a write).
import { isWriteMethod } from '../../legacy-surface/resources-touched.js';
import { isPaymentTarget } from '../../shared/request-target.js';
import { redactedSecretFields } from '../recordings/redacted-secrets.js';
import { recordedPathAndQuery } from './request-builder.js';
import type { RecordedExchange } from '../recordings/recording.js';

export const SKIP_REASONS = ['write', 'payment', 'not-api', 'no-recorded-reply'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const SKIP_REASON_TEXT: Readonly<Record<SkipReason, string>> = {
  write: 'write method (POST, PUT, PATCH, DELETE...): pass --include-writes to replay it',
  payment:
    'replayed only with --include-writes against the sandbox or a loopback target (or with --allow-production-writes)',
  'not-api': 'outside the legacy API (/api/**, /ondemand/**): pass --all-paths to replay it',
  'no-recorded-reply': 'the recording holds no reply body to compare (failed, aborted or 304 call)',
};

export interface SafetyPolicy {
  includeWrites: boolean;
  allowProductionWrites: boolean;
  /** The calls would reach the embedded sandbox, or a gateway on a loopback address. */
  targetIsSandboxOrLoopback: boolean;
  /** Replay paths outside /api/** and /ondemand/** too. */
  allPaths: boolean;
  /** Send and compare the calls the recording shows refused for their key (--compare-key-refusals). */
  compareKeyRefusals?: boolean;
}

export type ReplayDecision =
  | { replay: true }
  | { replay: false; reason: SkipReason }
  /** Never sent: the reason names the redacted fields (names only). */
  | { replay: false; notComparable: string };

/** Why a call whose secrets were redacted is not comparable: the field names, never a value. */
export function redactedReason(fields: readonly string[]): string {
  return `redacted in the recording: ${fields.join(', ')}`;
}

/** The recorded statuses of a call refused for its key: v1's 401 (no key, or an unknown one) and 403 (a key
 * not allowed this resource), which the gateway passes on. */
export const KEY_REFUSAL_STATUSES: readonly number[] = [401, 403];

/** Why a call refused for its key is not comparable. */
export function keyRefusedReason(status: number): string {
  return `refused for its key in the recording (HTTP ${status}): the replay would send its own key; --compare-key-refusals sends it anyway`;
}

/** Any origin: only the path of a URL parsed on it is read. */
const PARSE_ORIGIN = 'http://replay.invalid';

/**
 * Path of a recorded URL (absolute or path-only) as the replay sends it: the recorded path on the target,
 * parsed as the HTTP client parses it (dot segments resolved, unsafe characters percent-encoded, nothing
 * decoded). Undefined when the URL is not an http(s) URL.
 */
export function recordedPath(url: string): string | undefined {
  if (!url.startsWith('/')) {
    try {
      const { protocol } = new URL(url);
      if (protocol !== 'http:' && protocol !== 'https:') return undefined;
    } catch {
      return undefined;
    }
  }
  try {
    return new URL(PARSE_ORIGIN + recordedPathAndQuery(url)).pathname;
  } catch {
    return undefined;
  }
}

/**
 * The gateway's payment call (`POST /api/payment`, exactly so spelled; the replay sends every method
 * upper-cased). Another spelling (`/API/PAYMENT`) is not the payment to the gateway either: it stays a
 * write, skipped without --include-writes.
 */
export function isPaymentCall(method: string, url: string): boolean {
  const p = recordedPath(url);
  return p !== undefined && isPaymentTarget(method.toUpperCase(), p);
}

function isLegacySurface(p: string): boolean {
  return /^\/(api|ondemand)(\/|$)/i.test(p);
}

export function decideReplay(
  call: { method: string; url: string; hasRecordedReply: boolean; recordedStatus: number; redactedSecrets?: readonly string[] },
  policy: SafetyPolicy,
): ReplayDecision {
  const p = recordedPath(call.url);
  if (p === undefined || (!policy.allPaths && !isLegacySurface(p))) return { replay: false, reason: 'not-api' };
  if (call.redactedSecrets !== undefined && call.redactedSecrets.length > 0) return { replay: false, notComparable: redactedReason(call.redactedSecrets) };
  if (KEY_REFUSAL_STATUSES.includes(call.recordedStatus) && policy.compareKeyRefusals !== true) {
    return { replay: false, notComparable: keyRefusedReason(call.recordedStatus) };
  }
  if (isPaymentCall(call.method, call.url)) {
    const allowed = policy.includeWrites && (policy.targetIsSandboxOrLoopback || policy.allowProductionWrites);
    if (!allowed) return { replay: false, reason: 'payment' };
  } else if (isWriteMethod(call.method) && !policy.includeWrites) {
    return { replay: false, reason: 'write' };
  }
  if (!call.hasRecordedReply || call.recordedStatus === 0 || call.recordedStatus === 304) {
    return { replay: false, reason: 'no-recorded-reply' };
  }
  return { replay: true };
}

/** decideReplay for a call as the recording reader gives it. */
export function decideExchange(exchange: RecordedExchange, policy: SafetyPolicy): ReplayDecision {
  return decideReplay(
    {
      method: exchange.request.method,
      url: exchange.request.url,
      hasRecordedReply: exchange.response.body !== undefined,
      recordedStatus: exchange.response.status,
      redactedSecrets: redactedSecretFields(exchange.request),
    },
    policy,
  );
}

/** localhost, *.localhost, 127.0.0.0/8, ::1 (bracketed or not). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  host = host.replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    host === '::1' ||
    host === '0:0:0:0:0:0:0:1' ||
    host === '::ffff:127.0.0.1' ||
    host === '::ffff:7f00:1'
  );
}
