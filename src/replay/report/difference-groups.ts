// Groups the differences of a whole run by legacy method, path pattern (array indexes generalised:
// `$.response[*].first_name`) and kind, counting in how many entries each group occurs and how many
// differences it has, so a reviewer sees that one field is wrong in every call of a method rather than
// 50 separate differences. A difference caused by earlier replayed writes (`cause: "replay"`) is a group of
// its own, never merged with the gateway's.
// Pure: must never do I/O. Fed every entry of a run, redacted, in file order; memory is bounded by the
// number of distinct groups (MAX_GROUPS), never by the number of entries.
import type { ReplayDifference } from './replay-difference.js';
import { stringifyExact, type JsonValue } from '../../shared/json-exact.js';
import { generalisePath } from '../../json-diff/json-path.js';
import type { ReportEntry } from './entry.js';

export interface DifferenceGroup {
  /** The legacy method (`clients`). */
  method: string;
  /** The path pattern, a rules-file pattern as is; OTHER_PATHS for groups past MAX_GROUPS. */
  path: string;
  kind: string;
  /** `replay` when earlier replayed writes caused the difference. */
  cause?: string;
  /** Entries with at least one difference of the group. */
  entries: number;
  /** Differences of the group in all entries. */
  differences: number;
  /** The first entry with the group (its index, the entry number of both reports). */
  firstEntry: number;
  /** The first difference's values, as shortened JSON text (absent for a missing or extra side). */
  expected?: string;
  actual?: string;
}

/** Distinct groups kept; past this, new paths are counted under OTHER_PATHS for their method and kind. */
export const MAX_GROUPS = 2000;
export const OTHER_PATHS = '(other paths)';
/** Characters kept of an example value. */
const EXAMPLE_CHARS = 120;

function exampleText(value: JsonValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = stringifyExact(value);
  return text.length > EXAMPLE_CHARS ? `${text.slice(0, EXAMPLE_CHARS - 1)}…` : text;
}

/** The key of a group: method, path pattern, kind and cause. */
export function groupKey(group: Pick<DifferenceGroup, 'method' | 'path' | 'kind' | 'cause'>): string {
  return JSON.stringify([group.method, group.path, group.kind, group.cause ?? '']);
}

/** The key of the group a difference belongs to, among those `has` knows (OTHER_PATHS past the cap). */
export function groupKeyOf(method: string, d: ReplayDifference, has: (key: string) => boolean): string {
  const key = groupKey({ method, path: generalisePath(d.path), kind: d.kind, cause: d.cause });
  return has(key) ? key : groupKey({ method, path: OTHER_PATHS, kind: d.kind, cause: d.cause });
}

export class DifferenceGroups {
  private readonly groups = new Map<string, DifferenceGroup>();

  add(entry: ReportEntry): void {
    const seen = new Set<string>();
    // A new path is a group of its own while there is room, else it joins its method's and kind's OTHER_PATHS.
    const has = (key: string): boolean => this.groups.has(key) || this.groups.size < MAX_GROUPS;
    for (const d of entry.diffs) {
      const key = groupKeyOf(entry.legacyMethod, d, has);
      let group = this.groups.get(key);
      if (group === undefined) {
        const path = (JSON.parse(key) as string[])[1] as string;
        group = { method: entry.legacyMethod, path, kind: d.kind, entries: 0, differences: 0, firstEntry: entry.index };
        if (d.cause !== undefined) group.cause = d.cause;
        const expected = exampleText(d.expected);
        const actual = exampleText(d.actual);
        if (expected !== undefined) group.expected = expected;
        if (actual !== undefined) group.actual = actual;
        this.groups.set(key, group);
      }
      group.differences++;
      if (!seen.has(key)) {
        seen.add(key);
        group.entries++;
      }
    }
  }

  /** Largest first: by entries, then differences, then method, path and kind. */
  list(): DifferenceGroup[] {
    return [...this.groups.values()].sort(
      (a, b) =>
        b.entries - a.entries ||
        b.differences - a.differences ||
        a.method.localeCompare(b.method) ||
        a.path.localeCompare(b.path) ||
        a.kind.localeCompare(b.kind),
    );
  }
}
