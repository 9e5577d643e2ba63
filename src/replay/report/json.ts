// The JSON report (`--json FILE`): {"summary":{total,identical,different,skipped,errors,notComparable,
// causedByReplay,...,kinds,bySeverity,methods},"interrupted":false,"file","target","rules":[...],"entries":[{method,url,outcome,
// diffs:[{path,kind,expected,actual,cause}],...}]}; an interrupted run adds "entriesInFile" after
// "interrupted", and a run with --propose-mappings adds "proposals" and "unexplained" after "rules"
// (src/replay/propose/proposal.ts). `expected` is the recorded value, `actual` the gateway's; a `missing`
// difference has no `actual`, an `extra` one no `expected`; `cause` only on a difference the replay itself
// caused. A `different` entry also has "request" (the recorded body as sent, its content type) and
// "bodies" (both whole replies, each {"kind":"json","value"} or {"kind":"text","text"}, or
// {"kind":"omitted","chars"} when too large); an `error` entry has "request". `index` is the entry's
// number in both reports. An entry with differences has "severity" (severity.ts) after "legacyMethod";
// the entries come in file order, except that the `money` ones come first (files.ts).
// Built as strings in pieces (opening, one line per entry, closing) so the runner can stream 100k entries
// to disk without holding them; numbers keep their recorded spelling.
// Pure: must never do I/O, and only ever receives entries that went through redactReportEntry.
import type { ReplayDifference } from './replay-difference.js';
import type { RuleOrigin } from '../../json-diff/diff-rules.js';
import { stringifyExact, type JsonObject, type JsonValue } from '../../shared/json-exact.js';
import { reportBodiesJson } from './body.js';
import type { ReportEntry } from './entry.js';
import { requestViewJson } from '../recordings/request-view.js';
import type { ReplaySummary } from './summary.js';
import type { Proposal, Unexplained } from '../propose/proposal.js';
import { proposalOutcomeJson } from '../propose/proposal-report.js';
import { entrySeverity } from './severity.js';

export interface RuleUsage {
  /** `ignore[0] $.response[*].updated_at` */
  rule: string;
  /** Entries in which the rule applied at least once; 0 means the rule matched nothing. */
  matchedEntries: number;
  /** `default`: the rule set shipped with the tool; `file`: the operator's --rules file. */
  origin: RuleOrigin;
}

export interface ReportMeta {
  /** The recording, as named on the command line. */
  file: string;
  /** Where the calls went (credentials removed). */
  target: string;
  rules: RuleUsage[];
  /** The run was stopped (SIGINT/SIGTERM) before every entry was replayed: the report covers those done. */
  interrupted: boolean;
  /** Entries in the recording, when known: with `interrupted`, how many the report could have covered. */
  entriesInFile?: number | undefined;
  /** With --propose-mappings only: the proposed mapping edits, with their evidence. */
  proposals?: Proposal[] | undefined;
  /** With --propose-mappings only: the fields that differed with no consistent v1 source. */
  unexplained?: Unexplained[] | undefined;
}

function differenceJson(d: ReplayDifference): JsonObject {
  const out: JsonObject = { path: d.path, kind: d.kind };
  if (d.expected !== undefined) out.expected = d.expected;
  if (d.actual !== undefined) out.actual = d.actual;
  if (d.cause !== undefined) out.cause = d.cause;
  return out;
}

export function entryJson(entry: ReportEntry): JsonObject {
  const out: JsonObject = {
    method: entry.method,
    url: entry.url,
    outcome: entry.outcome,
    diffs: entry.diffs.map(differenceJson),
    index: entry.index,
    legacyMethod: entry.legacyMethod,
  };
  const severity = entrySeverity(entry);
  if (severity !== undefined) out.severity = severity;
  if (entry.status) out.status = { expected: entry.status.expected, actual: entry.status.actual };
  if (entry.reason !== undefined) out.reason = entry.reason;
  if (entry.error !== undefined) out.error = entry.error;
  if (entry.request !== undefined) out.request = requestViewJson(entry.request);
  if (entry.bodies !== undefined) out.bodies = reportBodiesJson(entry.bodies);
  return out;
}

export function summaryJson(summary: ReplaySummary): JsonObject {
  return {
    total: summary.total,
    identical: summary.identical,
    different: summary.different,
    skipped: summary.skipped,
    errors: summary.errors,
    notComparable: summary.notComparable,
    causedByReplay: summary.causedByReplay,
    skippedBy: { ...summary.skippedBy },
    kinds: { ...summary.kinds },
    bySeverity: { ...summary.bySeverity },
    methods: Object.fromEntries(Object.entries(summary.methods).map(([k, v]) => [k, { ...v }])) as JsonObject,
  };
}

/** Everything before the first entry. */
export function jsonReportOpening(summary: ReplaySummary, meta: ReportMeta): string {
  const head = stringifyExact({
    summary: summaryJson(summary),
    interrupted: meta.interrupted,
    // Only when interrupted: a complete run's count is summary.total.
    ...(meta.interrupted && meta.entriesInFile !== undefined ? { entriesInFile: meta.entriesInFile } : {}),
    file: meta.file,
    target: meta.target,
    rules: meta.rules.map((r) => ({ rule: r.rule, matchedEntries: r.matchedEntries, origin: r.origin })) as JsonValue[],
    // Only with --propose-mappings.
    ...(meta.proposals !== undefined ? proposalOutcomeJson({ proposals: meta.proposals, unexplained: meta.unexplained ?? [] }) : {}),
  });
  return head.slice(0, -1) + ',"entries":[\n';
}

/** One entry; `first` decides the separator. */
export function jsonReportEntry(entry: ReportEntry, first: boolean): string {
  return (first ? '' : ',\n') + stringifyExact(entryJson(entry));
}

export const JSON_REPORT_CLOSING = '\n]}\n';

/** Money entries first, then the others, each in the order given (file order). */
export function moneyFirst<T extends ReportEntry>(entries: readonly T[]): T[] {
  const money = entries.filter((e) => entrySeverity(e) === 'money');
  return money.length === 0 ? [...entries] : [...money, ...entries.filter((e) => entrySeverity(e) !== 'money')];
}

/** The whole report at once, for small runs and tests; ordered as the streamed one (money entries first). */
export function buildJsonReport(summary: ReplaySummary, meta: ReportMeta, entries: readonly ReportEntry[]): string {
  return jsonReportOpening(summary, meta) + moneyFirst(entries).map((e, i) => jsonReportEntry(e, i === 0)).join('') + JSON_REPORT_CLOSING;
}
