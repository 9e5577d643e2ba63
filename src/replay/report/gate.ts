// The exit code's gate (`--max-differences`): a total (`N`: at most N entries differ or failed, the form
// it always had), allowances per severity (`money=0,value=10`: at most 0 money entries and 10 value
// entries; a severity not named is not gated), or both (`20,money=0`). With allowances only and no total,
// a call that failed (an `error` entry: connection refused, timeout) still fails the run: it was not
// compared, so no severity vouches for it. Over any limit: exit 1.
// Pure: must never do I/O; a malformed value is an error message (the command exits 2 with it).
import { SEVERITIES, type Severity } from './severity.js';
import type { ReplaySummary } from './summary.js';

export interface DifferenceGate {
  /** Entries that differ or failed, in all; undefined: not gated as a total. */
  total?: number | undefined;
  /** Differing entries allowed per severity; a severity absent is not gated. */
  bySeverity: Partial<Record<Severity, number>>;
}

/** No option: no entry may differ or fail. */
export const DEFAULT_GATE: DifferenceGate = { total: 0, bySeverity: {} };

/** `--max-differences N`, the total alone. */
export const totalGate = (total: number): DifferenceGate => ({ total, bySeverity: {} });

const WHOLE = /^\d+$/;

/** Parses `N`, `severity=N,...` or both; a string is the one-line reason it is not a gate. */
export function parseDifferenceGate(text: string): DifferenceGate | string {
  const gate: DifferenceGate = { bySeverity: {} };
  const items = text.split(',').map((item) => item.trim());
  for (const item of items) {
    const eq = item.indexOf('=');
    const name = eq < 0 ? undefined : item.slice(0, eq).trim();
    const count = (eq < 0 ? item : item.slice(eq + 1)).trim();
    if (!WHOLE.test(count) || !Number.isSafeInteger(Number(count))) {
      return `must be a whole number or severity=number pairs (${SEVERITIES.join(', ')}), e.g. 5 or money=0,value=10: "${item}" is not`;
    }
    const n = Number(count);
    if (name === undefined) {
      if (gate.total !== undefined) return `names the total twice ("${item}")`;
      gate.total = n;
    } else {
      if (!(SEVERITIES as readonly string[]).includes(name)) return `names an unknown severity "${name}" (the severities: ${SEVERITIES.join(', ')})`;
      if (gate.bySeverity[name as Severity] !== undefined) return `names ${name} twice`;
      gate.bySeverity[name as Severity] = n;
    }
  }
  return gate;
}

export interface GateOutcome {
  exitCode: 0 | 1;
  /** `3`, or `money 0, value 10, failed 0`: what the verdict line says is allowed. */
  allowed: string;
  /** Each limit exceeded: `money 1 (allowed 0)`. */
  over: string[];
}

/** Whether the run's counts pass the gate. */
export function applyGate(summary: ReplaySummary, gate: DifferenceGate): GateOutcome {
  const failing = summary.different + summary.errors;
  const over: string[] = [];
  const allowed: string[] = [];
  const named = SEVERITIES.filter((s) => gate.bySeverity[s] !== undefined);
  if (gate.total !== undefined) {
    allowed.push(named.length > 0 ? `${gate.total} in all` : String(gate.total));
    if (failing > gate.total) over.push(`${failing} in all (allowed ${gate.total})`);
  }
  for (const s of named) {
    const max = gate.bySeverity[s] as number;
    allowed.push(`${s} ${max}`);
    if (summary.bySeverity[s] > max) over.push(`${s} ${summary.bySeverity[s]} (allowed ${max})`);
  }
  if (gate.total === undefined) {
    allowed.push('failed 0');
    if (summary.errors > 0) over.push(`failed ${summary.errors} (allowed 0)`);
  }
  return { exitCode: over.length > 0 ? 1 : 0, allowed: allowed.join(', '), over };
}

/** `--max-differences` as given: a number (the total) or a gate. */
export function gateOf(gate: number | DifferenceGate): DifferenceGate {
  return typeof gate === 'number' ? totalGate(gate) : gate;
}
