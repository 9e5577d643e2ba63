// How much a differing entry matters, so a reviewer reads the payments first: `money` (the payment call,
// POST /api/payment as the gateway recognises it, whose legacy `code` or HTTP status differs), `status`
// (the HTTP status differs), `shape` (a `type`, `missing` or `extra` difference), `value` (a `value` or
// `format` difference: the same value spelled otherwise is still a different text), `order` (`order` or
// `key-order`). An entry's severity is the highest of its differences' (money > status > shape > value >
// order); the differences caused by the replay itself count only when the entry has no other.
// Pure: must never do I/O, never throws.
import type { DiffKind } from '../../json-diff/json-diff.js';
import type { ReplayDifference } from './replay-difference.js';
import { STATUS_PATH } from '../../json-diff/reply-diff.js';
import { ROOT_PATH } from '../../json-diff/json-path.js';
import { isPaymentCall } from '../run/safety.js';

/** Highest first. */
export const SEVERITIES = ['money', 'status', 'shape', 'value', 'order'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The severity of each difference kind outside a payment's outcome. */
const KIND_SEVERITY: Readonly<Record<DiffKind, Severity>> = {
  status: 'status',
  type: 'shape',
  missing: 'shape',
  extra: 'shape',
  value: 'value',
  format: 'value',
  order: 'order',
  'key-order': 'order',
};

/** The legacy reply's outcome code (`{"status":"failure","code":8,...}`). */
export const LEGACY_CODE_PATH = '$.code';

/** 0 for money, 4 for order: sorts highest first. */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/** The higher of two severities. */
export function higherSeverity(a: Severity, b: Severity): Severity {
  return severityRank(a) <= severityRank(b) ? a : b;
}

/**
 * The payment's outcome differs: its HTTP status, its legacy `code` (any difference there), or the body as a
 * whole (`$` replaced, missing or of another type: there is no same code to compare). An order difference
 * of the whole body (its keys in another order) leaves the code as it was.
 */
function changesPaymentOutcome(d: ReplayDifference): boolean {
  if (d.kind === 'status') return true;
  if (d.path === LEGACY_CODE_PATH || d.path.startsWith(`${LEGACY_CODE_PATH}.`) || d.path.startsWith(`${LEGACY_CODE_PATH}[`)) return true;
  return d.path === ROOT_PATH && d.kind !== 'order' && d.kind !== 'key-order';
}

/** One difference's severity; `payment`: the entry is the payment call. */
export function differenceSeverity(d: ReplayDifference, payment: boolean): Severity {
  if (payment && changesPaymentOutcome(d)) return 'money';
  return d.kind === 'status' || d.path === STATUS_PATH ? 'status' : (KIND_SEVERITY[d.kind] ?? 'value');
}

/** The highest severity of the differences (undefined for none). */
export function highestSeverity(diffs: readonly ReplayDifference[], payment: boolean): Severity | undefined {
  let out: Severity | undefined;
  for (const d of diffs) {
    const s = differenceSeverity(d, payment);
    out = out === undefined ? s : higherSeverity(out, s);
    if (out === 'money') break;
  }
  return out;
}

/**
 * An entry's severity: the highest of its gateway differences, or, when the replay caused every one, of
 * those. undefined for an entry without differences (identical, skipped, error, not comparable).
 */
export function entrySeverity(entry: { method: string; url: string; diffs: readonly ReplayDifference[] }): Severity | undefined {
  if (entry.diffs.length === 0) return undefined;
  const payment = isPaymentCall(entry.method, entry.url);
  const gateway = entry.diffs.filter((d) => d.cause === undefined);
  return highestSeverity(gateway.length > 0 ? gateway : entry.diffs, payment);
}

export function zeroSeverityCounts(): Record<Severity, number> {
  return { money: 0, status: 0, shape: 0, value: 0, order: 0 };
}
