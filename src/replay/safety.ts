// Decides, per recorded call, whether replaying it is safe, and if not, why it is skipped. Reads replay by
// default; writes only with --include-writes; a payment (POST /api/payment) only with --include-writes
// and a target that cannot charge a real card (the embedded sandbox or a loopback address), unless
// --allow-production-writes is also given. Other skip reasons: paths outside the legacy API surface (a
// browser HAR also holds pages, scripts and third-party calls) and replies the recording does not hold.
// Pure: must never do I/O; when in doubt it skips (an unknown HTTP method counts as a write).

export const SKIP_REASONS = ['write', 'payment', 'not-api', 'no-recorded-reply'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const SKIP_REASON_TEXT: Readonly<Record<SkipReason, string>> = {
  write: 'write method (POST, PUT, PATCH, DELETE...): pass --include-writes to replay it',
  payment:
    'replayed only with --include-writes against the sandbox or a loopback target (or with --allow-production-writes)',
  'not-api': 'outside the legacy API (/api/**, /ondemand/**): pass --all-paths to replay it',
  'no-recorded-reply': 'the recording holds no reply body to compare (failed, aborted or 304 call)',
};

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface SafetyPolicy {
  includeWrites: boolean;
  allowProductionWrites: boolean;
  /** The calls would reach the embedded sandbox, or a gateway on a loopback address. */
  targetIsSandboxOrLoopback: boolean;
  /** Replay paths outside /api/** and /ondemand/** too. */
  allPaths: boolean;
}

export type ReplayDecision = { replay: true } | { replay: false; reason: SkipReason };

/** Path of a recorded URL (absolute or path-only), or undefined when it is not an http(s) URL. */
export function recordedPath(url: string): string | undefined {
  if (url.startsWith('/')) return url.split(/[?#]/, 1)[0];
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.pathname : undefined;
  } catch {
    return undefined;
  }
}

/** Express routes case-insensitively and ignores a trailing slash, so the check does too. */
export function isPaymentCall(method: string, url: string): boolean {
  const p = recordedPath(url);
  return method.toUpperCase() === 'POST' && p !== undefined && /^\/api\/payment\/?$/i.test(p);
}

export function isWriteMethod(method: string): boolean {
  return !READ_METHODS.has(method.toUpperCase());
}

function isLegacySurface(p: string): boolean {
  return /^\/(api|ondemand)(\/|$)/i.test(p);
}

export function decideReplay(
  call: { method: string; url: string; hasRecordedReply: boolean; recordedStatus: number },
  policy: SafetyPolicy,
): ReplayDecision {
  const p = recordedPath(call.url);
  if (p === undefined || (!policy.allPaths && !isLegacySurface(p))) return { replay: false, reason: 'not-api' };
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
