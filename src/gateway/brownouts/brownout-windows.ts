// When a brownout window is open, and whom it refuses: pure functions of the windows and a moment given by
// the caller (no clock here), so the step, the notices and the dry run agree, and a test can ask about any
// moment. An occurrence is one opening of a window: a window without `repeat` has one; a repeated one opens
// again every `every` from its start, as long as the opening is not after `until`.
import type { BrownoutWindow } from './brownout-schema.js';

/** One opening of a window: [start, end) in ms since the epoch. */
export interface Occurrence {
  window: BrownoutWindow;
  start: number;
  end: number;
}

/** What a legacy call is, as far as a brownout cares. */
export interface CallScope {
  /** The caller's integration (INTEGRATIONS_FILE); undefined: a key no integration names. */
  integration: string | undefined;
  /** `read` with its legacy method, or the payment. */
  kind: 'read' | 'payment';
  method: string;
}

const lengthOf = (w: BrownoutWindow): number => w.end - w.start;

/** The occurrence of `w` open at `at`, if any. */
export function openOccurrence(w: BrownoutWindow, at: number): Occurrence | undefined {
  if (at < w.start) return undefined;
  if (!w.repeat) return at < w.end ? { window: w, start: w.start, end: w.end } : undefined;
  const k = Math.floor((at - w.start) / w.repeat.everyMs);
  const start = w.start + k * w.repeat.everyMs;
  if (start > w.repeat.until) return undefined;
  const end = start + lengthOf(w);
  return at < end ? { window: w, start, end } : undefined;
}

/** Every occurrence of `w` that overlaps [from, to), in order. */
export function occurrencesBetween(w: BrownoutWindow, from: number, to: number): Occurrence[] {
  const out: Occurrence[] = [];
  const length = lengthOf(w);
  if (!w.repeat) {
    if (w.start < to && w.end > from) out.push({ window: w, start: w.start, end: w.end });
    return out;
  }
  const every = w.repeat.everyMs;
  // The first occurrence that may still be open at `from`.
  let k = Math.max(0, Math.floor((from - length - w.start) / every));
  for (let start = w.start + k * every; start < to && start <= w.repeat.until; k++, start = w.start + k * every) {
    if (start + length > from) out.push({ window: w, start, end: start + length });
  }
  return out;
}

/** Whether the window refuses this call's integration: listed (or every one), and not excepted. */
export function coversIntegration(w: BrownoutWindow, integration: string | undefined): boolean {
  if (integration !== undefined && w.except.has(integration)) return false;
  if (w.integrations === undefined) return true;
  return integration !== undefined && w.integrations.has(integration);
}

/** Whether the window refuses this kind of call: the payment only with `payments: true`; a read when its
 * method is listed (or none are). */
export function coversMethod(w: BrownoutWindow, kind: CallScope['kind'], method: string): boolean {
  if (kind === 'payment') return w.payments;
  return w.methods === undefined || w.methods.has(method);
}

/** The open occurrence that refuses this call at `at` (the first window in the file's order), if any. */
export function refusingOccurrence(windows: readonly BrownoutWindow[], call: CallScope, at: number): Occurrence | undefined {
  for (const w of windows) {
    if (!coversMethod(w, call.kind, call.method)) continue;
    const open = openOccurrence(w, at);
    if (open && coversIntegration(w, call.integration)) return open;
  }
  return undefined;
}

/** Whether any window is open at `at` (the step looks the caller's integration up only then). */
export function anyOpen(windows: readonly BrownoutWindow[], at: number): boolean {
  return windows.some((w) => openOccurrence(w, at) !== undefined);
}

/** Every occurrence of every window beginning in [from, to), by start time. */
export function comingOccurrences(windows: readonly BrownoutWindow[], from: number, to: number): Occurrence[] {
  return windows
    .flatMap((w) => occurrencesBetween(w, from, to).filter((o) => o.start >= from))
    .sort((a, b) => a.start - b.start || (a.window.name < b.window.name ? -1 : 1));
}

/** Whole seconds from `at` to the end of the occurrence (at least 1): the refusal's Retry-After. */
export function secondsToEnd(o: Occurrence, at: number): number {
  return Math.max(1, Math.ceil((o.end - at) / 1000));
}
