// Builds the report entry of one recorded call from what happened to it: skipped (and why), not
// comparable (and why) or not replayable (and the error), with the request; or replayed and compared with
// the recorded reply (a differing one with the request and both whole replies).
// Pure: must never do I/O. The entries built here still hold recorded values: the runner redacts each one
// before any sink sees it.
import type { DiffRules } from '../../json-diff/diff-rules.js';
import type { JsonValue } from '../../shared/json-exact.js';
import { markCausedByReplay } from './write-effects.js';
import { legacyMethodOf } from '../recordings/legacy-method.js';
import type { RecordedExchange } from '../recordings/recording.js';
import { diffReplies, parseBody } from '../../json-diff/reply-diff.js';
import { reportBody } from '../report/body.js';
import type { ReportEntry } from '../report/entry.js';
import { requestView } from '../recordings/request-view.js';
import type { SkipReason } from './safety.js';

/** What the target answered to a replayed call: its status and its body, decoded to text. */
export interface TargetReply {
  status: number;
  text: string;
}

export interface ComparedEntry {
  entry: ReportEntry;
  /** Ids of the rules that applied in the comparison, for the report of rules that matched nothing. */
  matchedRuleIds: readonly number[];
  /** The recorded reply's JSON body, as compared, when the entry is `different` (the mapping proposal reads
   * the recorded records from it). It holds recorded values: never shown, only searched. */
  recordedJson?: JsonValue;
}

type EntryHead = Pick<ReportEntry, 'index' | 'method' | 'url' | 'legacyMethod'>;

function entryHead(exchange: RecordedExchange): EntryHead {
  const { method, url } = exchange.request;
  return { index: exchange.index, method, url, legacyMethod: exchange.legacyMethod ?? legacyMethodOf(url) };
}

export function skippedEntry(exchange: RecordedExchange, reason: SkipReason): ReportEntry {
  return { ...entryHead(exchange), outcome: 'skipped', diffs: [], reason };
}

/** Never sent: `reason` names what the recording lacks (recordings/redacted-secrets.ts). */
export function notComparableEntry(exchange: RecordedExchange, reason: string): ReportEntry {
  return { ...entryHead(exchange), outcome: 'not-comparable', diffs: [], reason, request: requestView(exchange.request) };
}

export function errorEntry(exchange: RecordedExchange, error: string): ReportEntry {
  return { ...entryHead(exchange), outcome: 'error', diffs: [], error, request: requestView(exchange.request) };
}

/**
 * Rules whose use is counted whenever their path is met, so a comparison must walk even equal replies.
 * A pattern rule counts only when it makes two different values equal, which equal bytes never need.
 */
function hasRulesCountedOnEqual(rules: DiffRules): boolean {
  return rules.ignore.length + rules.unordered.length + rules.tolerance.length > 0;
}

/** How a replayed call is compared. */
export interface Comparison {
  rulesFor: (legacyMethod: string) => DiffRules;
  checkOrder: boolean;
  checkKeyOrder: boolean;
}

/**
 * The replayed call's entry: `identical` or `different`, with the differences of status and body.
 * `afterWrite`: the call reads what an earlier replayed write changed (write-effects.ts).
 */
export function replayedEntry(exchange: RecordedExchange, reply: TargetReply, comparison: Comparison, afterWrite: boolean): ComparedEntry {
  const head = entryHead(exchange);
  const rules = comparison.rulesFor(head.legacyMethod);
  const recorded = exchange.response.body ?? { kind: 'text' as const, text: '' };
  const status = { expected: exchange.response.status, actual: reply.status };
  // The same bytes are the same reply: no parse, no diff. Only without rules, whose use is counted.
  if (recorded.kind === 'text' && recorded.text === reply.text && status.expected === status.actual && !hasRulesCountedOnEqual(rules)) {
    return { entry: { ...head, outcome: 'identical', diffs: [], status }, matchedRuleIds: [] };
  }
  const recordedBody = recorded.kind === 'text' ? parseBody(recorded.text) : recorded;
  const replyBody = parseBody(reply.text);
  const result = diffReplies(
    { status: status.expected, body: recordedBody },
    { status: status.actual, body: replyBody },
    { rules, checkOrder: comparison.checkOrder, checkKeyOrder: comparison.checkKeyOrder },
  );
  if (result.differences.length === 0) {
    return { entry: { ...head, outcome: 'identical', diffs: [], status }, matchedRuleIds: result.matchedRuleIds };
  }
  const diffs = afterWrite ? markCausedByReplay(result.differences) : result.differences;
  const bodies = {
    recorded: reportBody(recordedBody, recorded.kind === 'text' ? recorded.text : undefined),
    gateway: reportBody(replyBody, reply.text),
  };
  const entry: ReportEntry = { ...head, outcome: 'different', diffs, status, request: requestView(exchange.request), bodies };
  const compared: ComparedEntry = { entry, matchedRuleIds: result.matchedRuleIds };
  if (recordedBody.kind === 'json') compared.recordedJson = recordedBody.value;
  return compared;
}
