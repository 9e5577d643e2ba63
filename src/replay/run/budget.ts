// The upstream budget check: v1 allows a fixed number of calls per hour per key, counted separately for
// each URL and verb (1,000 on the top-tier plan, 100 on a trial). Before replaying, the calls the file
// would make are counted per verb and URL; when one exceeds the budget the operator gets a warning and a
// plan (a --rate that keeps the busiest call under it, and how long that takes) instead of a wall of 429s.
// Pure: must never do I/O; counts are handed in, text comes out. It never sees an API key (the URL is
// counted without `api_key`).
import { recordedPathAndQuery, replaceQueryKey } from './request-builder.js';

export const DEFAULT_HOURLY_BUDGET = 1000;

/** `GET /api/clients/0/10`: the unit v1 counts (verb + URL), the key parameter left out. */
export function budgetKey(method: string, url: string): string {
  return `${method.toUpperCase()} ${replaceQueryKey(recordedPathAndQuery(url), undefined).pathAndQuery}`;
}

export interface BudgetPlan {
  limitPerHour: number;
  /** The calls over the budget, busiest first. */
  overBudget: Array<{ call: string; count: number }>;
  /** Calls per second for the whole replay that keeps the busiest call under the budget. */
  safeRatePerSecond: number;
  /** How long the replay takes at that rate, in hours. */
  hoursAtSafeRate: number;
}

/**
 * undefined when the replay stays within the budget: no call exceeds it, or the chosen --rate already
 * spreads the busiest call over enough hours (assuming its calls are spread through the file).
 */
export function planBudget(
  counts: ReadonlyMap<string, number>,
  totalReplayed: number,
  limitPerHour: number,
  ratePerSecond: number | undefined,
): BudgetPlan | undefined {
  const overBudget = [...counts]
    .filter(([, count]) => count > limitPerHour)
    .map(([call, count]) => ({ call, count }))
    .sort((a, b) => b.count - a.count || a.call.localeCompare(b.call));
  const busiest = overBudget[0];
  if (busiest === undefined) return undefined;
  const safeRatePerSecond = ((limitPerHour / 3600) * totalReplayed) / busiest.count;
  if (ratePerSecond !== undefined && ratePerSecond <= safeRatePerSecond) return undefined;
  return { limitPerHour, overBudget, safeRatePerSecond, hoursAtSafeRate: totalReplayed / safeRatePerSecond / 3600 };
}

function roundDown(n: number): string {
  if (n >= 10) return String(Math.floor(n));
  return String(Math.floor(n * 100) / 100);
}

export function formatBudgetWarning(plan: BudgetPlan): string[] {
  const shown = plan.overBudget.slice(0, 5);
  const lines = [
    `warning: this replay would exceed the v1 budget of ${plan.limitPerHour} calls per hour per key, counted per URL and verb:`,
    ...shown.map((c) => `  ${c.call}  ${c.count} calls`),
  ];
  if (plan.overBudget.length > shown.length) lines.push(`  ... and ${plan.overBudget.length - shown.length} more`);
  lines.push(
    `plan: replay with --rate ${roundDown(plan.safeRatePerSecond)}/s (about ${plan.hoursAtSafeRate.toFixed(1)} h) so the busiest call stays under the budget,`,
    `      or split the file so no call appears more than ${plan.limitPerHour} times per part and replay one part per hour.`,
    `      The gateway's cache (CACHE_TTL_MS) absorbs repeats within its TTL, so fewer calls may reach v1; calls over the budget answer 429.`,
  );
  return lines;
}
