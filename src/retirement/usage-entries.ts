// What the retirement commands read of a gateway's usage report (GET /usage): per integration its name (when
// INTEGRATIONS_FILE names its key), fingerprint, calls, calls per method, last call and, when the report has
// them, its calls per day (`daily`). Read from the report's plain data, whatever else it carries; a value that
// cannot be read is left out, never guessed. Pure: the moment to judge from is handed in.

/** One day's calls of one integration: the day in UTC (`2026-12-01`), its calls, and per method when given. */
export interface DayCalls {
  day: string;
  calls: number;
  methods: Readonly<Record<string, number>> | undefined;
}

/** One integration of the report, as the retirement commands judge it. */
export interface UsageEntry {
  /** INTEGRATIONS_FILE's name for its key; undefined: a key no integration names. */
  name: string | undefined;
  fingerprint: string;
  calls: number;
  methods: Readonly<Record<string, number>>;
  /** Its last call, as the report spells it, and in ms since the epoch. */
  lastSeen: string;
  lastSeenMs: number;
  /** Its calls per day, oldest first; undefined: the report counts no days. */
  daily: DayCalls[] | undefined;
}

const DAY_MS = 86_400_000;

const countOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined);

function methodCounts(value: unknown): Record<string, number> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const out: Record<string, number> = {};
  for (const [method, n] of Object.entries(value as Record<string, unknown>)) {
    const count = countOf(n);
    if (count !== undefined) out[method] = count;
  }
  return out;
}

const sum = (counts: Readonly<Record<string, number>>): number => Object.values(counts).reduce((a, b) => a + b, 0);

/** One day as the report may spell it: a count, `{ method: count }`, or `{ calls, methods }`. */
function dayOf(day: string, value: unknown): DayCalls | undefined {
  // A day that reads back as written (Date.parse takes 2027-02-30 for 2 March).
  const parsed = new Date(`${day}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day) return undefined;
  const calls = countOf(value);
  if (calls !== undefined) return { day, calls, methods: undefined };
  const v = value as { calls?: unknown; methods?: unknown } | null;
  if (typeof v !== 'object' || v === null) return undefined;
  if ('calls' in v || 'methods' in v) {
    const methods = methodCounts(v.methods);
    const total = countOf(v.calls) ?? (methods ? sum(methods) : undefined);
    return total === undefined ? undefined : { day, calls: total, methods };
  }
  const methods = methodCounts(v);
  return methods ? { day, calls: sum(methods), methods } : undefined;
}

/** `daily` as a map of days (`{ "2026-12-01": 12 }`, or per method), or a list of `{ day, calls, methods }`. */
export function dailyCalls(value: unknown): DayCalls[] | undefined {
  let days: Array<DayCalls | undefined>;
  if (Array.isArray(value)) {
    days = value.map((d: unknown) => {
      const item = d as { day?: unknown; date?: unknown } | null;
      const day = typeof item?.day === 'string' ? item.day : typeof item?.date === 'string' ? item.date : undefined;
      return day === undefined ? undefined : dayOf(day, item);
    });
  } else if (typeof value === 'object' && value !== null) {
    days = Object.entries(value as Record<string, unknown>).map(([day, v]) => dayOf(day, v));
  } else {
    return undefined;
  }
  return days.filter((d): d is DayCalls => d !== undefined).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}

/** The report's entries the commands can judge: a fingerprint and a readable last call. */
export function usageEntries(integrations: readonly unknown[]): UsageEntry[] {
  return integrations.flatMap((raw) => {
    const i = raw as { name?: unknown; fingerprint?: unknown; calls?: unknown; methods?: unknown; lastSeen?: unknown; daily?: unknown } | null;
    if (typeof i?.fingerprint !== 'string' || typeof i.lastSeen !== 'string') return [];
    const lastSeenMs = Date.parse(i.lastSeen);
    if (Number.isNaN(lastSeenMs)) return [];
    const methods = methodCounts(i.methods) ?? {};
    return [
      {
        name: typeof i.name === 'string' && i.name !== '' ? i.name : undefined,
        fingerprint: i.fingerprint,
        calls: countOf(i.calls) ?? sum(methods),
        methods,
        lastSeen: i.lastSeen,
        lastSeenMs,
        daily: i.daily === undefined || i.daily === null ? undefined : dailyCalls(i.daily),
      },
    ];
  });
}

/** How an integration is named in a command's output: its name, else its fingerprint. */
export const entryLabel = (e: Pick<UsageEntry, 'name' | 'fingerprint'>): string => e.name ?? e.fingerprint;

/** The UTC days of the `days` days that end with the one holding `now`, oldest first. */
export function lastDays(now: number, days: number): string[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return Array.from({ length: days }, (_, k) => new Date(today - (days - 1 - k) * DAY_MS).toISOString().slice(0, 10));
}
