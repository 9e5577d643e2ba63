// A brownout's dry run: for each window of a brownouts file, when it opens next and how often, whom it refuses
// (its scope, exceptions, methods and the payment), and which integrations of a usage report it would hit, with
// how many of their calls, judged from the last 7 days. The windows are matched as the gateway matches them
// (src/gateway/brownouts/brownout-windows.ts, the same functions), so the dry run and the refusals agree.
//
// The calls are counted from the best the report has, said per integration (`basis`):
// - `daily`: its calls per day and method over the last 7 days;
// - `daily-share`: its calls per day over the last 7 days, split between methods in the shares of all its calls;
// - `methods`: no calls per day in the report: every call counted per method since it was first seen, for an
//   integration called in the last 7 days (one that was not would not be hit).
// Pure: the windows, the report's entries and the moment are handed in.
import type { BrownoutWindow } from '../gateway/brownouts/brownout-schema.js';
import { comingOccurrences, coversIntegration, coversMethod, openOccurrence, type Occurrence } from '../gateway/brownouts/brownout-windows.js';
import { lastDays, type UsageEntry } from './usage-entries.js';

/** The days of calls a forecast is judged from. */
export const FORECAST_DAYS = 7;
const DAY_MS = 86_400_000;
const SHOWN_OPENINGS = 3;

export type CallsBasis = 'daily' | 'daily-share' | 'methods';

/** One integration a window would refuse. */
export interface IntegrationHit {
  name: string | undefined;
  fingerprint: string;
  /** Its calls the window covers, over the basis's time. */
  calls: number;
  /** Those calls per legacy method, most first. */
  methods: Array<[method: string, calls: number]>;
  basis: CallsBasis;
  /** With a daily basis: its calls expected during one opening, at the last 7 days' rate. */
  perOpening: number | undefined;
}

export interface WindowForecast {
  window: BrownoutWindow;
  /** The opening under way at the moment, if any. */
  openNow: Occurrence | undefined;
  /** The first openings still to come, and how many there are in all. */
  next: Occurrence[];
  coming: number;
  /** When the last opening to come begins (NaN: none). */
  lastStart: number;
  /** The integrations it would refuse (with calls it covers), most calls first; [] without a report. */
  hits: IntegrationHit[];
  /** Integrations its `integrations` or `except` name that the report does not have. */
  unseen: string[];
}

const kindOf = (method: string): 'read' | 'payment' => (method === 'payment' ? 'payment' : 'read');

/** The window's covered calls of one integration, from the best counts the entry has; undefined: not hit. */
function hitOf(w: BrownoutWindow, e: UsageEntry, now: number, lengthMs: number): IntegrationHit | undefined {
  if (!coversIntegration(w, e.name)) return undefined;
  const covered = (method: string) => coversMethod(w, kindOf(method), method);
  const perMethod = new Map<string, number>();
  const add = (method: string, n: number) => perMethod.set(method, (perMethod.get(method) ?? 0) + n);
  let basis: CallsBasis;
  if (e.daily) {
    const days = new Set(lastDays(now, FORECAST_DAYS));
    const recent = e.daily.filter((d) => days.has(d.day) && d.calls > 0);
    if (recent.every((d) => d.methods !== undefined)) {
      basis = 'daily';
      for (const d of recent) for (const [m, n] of Object.entries(d.methods ?? {})) if (covered(m)) add(m, n);
    } else {
      basis = 'daily-share';
      const total = recent.reduce((n, d) => n + d.calls, 0);
      const all = Object.values(e.methods).reduce((a, b) => a + b, 0);
      for (const [m, n] of Object.entries(e.methods)) if (covered(m) && all > 0) add(m, Math.round((total * n) / all));
    }
  } else {
    if (e.lastSeenMs < now - FORECAST_DAYS * DAY_MS) return undefined;
    basis = 'methods';
    for (const [m, n] of Object.entries(e.methods)) if (covered(m)) add(m, n);
  }
  const methods = [...perMethod].filter(([, n]) => n > 0).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  const calls = methods.reduce((n, [, c]) => n + c, 0);
  if (calls === 0) return undefined;
  const perOpening = basis === 'methods' ? undefined : Math.round((calls * lengthMs) / (FORECAST_DAYS * DAY_MS));
  return { name: e.name, fingerprint: e.fingerprint, calls, methods, basis, perOpening };
}

/** Each window in the file's order; `entries` undefined: no report, the windows and their scope alone. */
export function forecastBrownouts(windows: readonly BrownoutWindow[], entries: readonly UsageEntry[] | undefined, now: number): WindowForecast[] {
  return windows.map((w) => {
    const coming = comingOccurrences([w], now, Number.POSITIVE_INFINITY);
    const openNow = openOccurrence(w, now);
    const lengthMs = w.end - w.start;
    const hits =
      entries === undefined || (openNow === undefined && coming.length === 0)
        ? []
        : entries.flatMap((e) => hitOf(w, e, now, lengthMs) ?? []).sort((a, b) => b.calls - a.calls || (a.fingerprint < b.fingerprint ? -1 : 1));
    const named = new Set(entries?.flatMap((e) => (e.name !== undefined ? [e.name] : [])) ?? []);
    const unseen = entries === undefined ? [] : [...(w.integrations ?? []), ...w.except].filter((n) => !named.has(n));
    return { window: w, openNow, next: coming.slice(0, SHOWN_OPENINGS), coming: coming.length, lastStart: coming.at(-1)?.start ?? Number.NaN, hits, unseen: [...new Set(unseen)] };
  });
}
