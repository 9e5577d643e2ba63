// What the HTML page keeps of a run: the entries it shows (every non-identical one up to a cap, then
// identical ones), their bodies up to a budget of characters for the whole page, and the difference groups
// of every entry of the run (the page counts all of them, shown or not). The runner streams entries; this
// is the only place the page's memory grows, and every part of it is bounded.
// Pure: must never do I/O; it only ever receives entries that went through redactReportEntry.
import { DifferenceGroups } from '../difference-groups.js';
import { reportBodyChars } from '../body.js';
import type { ReportEntry } from '../entry.js';

/** An entry on the page; `bodiesLeftOut` when the page's budget of bodies was spent before it. */
export type PageEntry = ReportEntry & { bodiesLeftOut?: boolean };

/** Characters of reply bodies the page holds in all (the JSON report has every entry's). */
export const MAX_PAGE_BODY_CHARS = 8 * 1024 * 1024;

export class HtmlEntrySelection {
  readonly groups = new DifferenceGroups();
  private readonly kept: PageEntry[] = [];
  private notable = 0;
  private identical = 0;
  private omitted = 0;
  private bodyChars = 0;
  private bodiesLeftOut = 0;

  constructor(
    private readonly maxNotable = 2000,
    private readonly maxIdentical = 500,
    private readonly maxBodyChars = MAX_PAGE_BODY_CHARS,
  ) {}

  add(entry: ReportEntry): void {
    this.groups.add(entry);
    if (entry.outcome === 'identical') {
      if (this.identical < this.maxIdentical) {
        this.identical++;
        this.kept.push(entry);
      } else this.omitted++;
      return;
    }
    if (this.notable >= this.maxNotable) {
      this.omitted++;
      return;
    }
    this.notable++;
    this.kept.push(this.withinBudget(entry));
  }

  private withinBudget(entry: ReportEntry): PageEntry {
    if (entry.bodies === undefined) return entry;
    const chars = reportBodyChars(entry.bodies.recorded) + reportBodyChars(entry.bodies.gateway);
    if (this.bodyChars + chars <= this.maxBodyChars) {
      this.bodyChars += chars;
      return entry;
    }
    this.bodiesLeftOut++;
    const { bodies: _dropped, ...rest } = entry;
    return { ...rest, bodiesLeftOut: true };
  }

  get entries(): readonly PageEntry[] {
    return this.kept;
  }

  get omittedEntries(): number {
    return this.omitted;
  }

  /** Entries on the page shown without their bodies (the budget was spent). */
  get entriesWithoutBodies(): number {
    return this.bodiesLeftOut;
  }
}
