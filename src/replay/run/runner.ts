// Runs a replay: reads the recording twice, streamed (first to validate every entry, collect the secrets
// to scrub and count calls for the budget, before any call is made; then to replay), sends each call the
// safety policy allows to the target, diffs the reply and hands redacted entries to the sinks in file
// order. Memory stays flat: at most a window of entries is held, whatever the file's size.
// An aborted `signal` stops it early: no entry is read or sent after it, the calls already in flight
// finish (each bounded by the per-call timeout) and are handed over in file order, and the result says
// `interrupted`.
// A write keeps its recorded place: it is sent once every earlier call is done, and no later call is sent
// before it is done; a later read of what it wrote has its data differences marked as caused by the
// replay (write-effects.ts), with a warning before any call.
// It must never replay a call the policy skips or finds not comparable, never retry (a payment is made at
// most once), never hand a sink an entry that did not go through redaction, and never call process.exit.
import { setTimeout as sleepFor } from 'node:timers/promises';
import zlib from 'node:zlib';
import { Agent, request } from 'undici';
import { budgetKey, formatBudgetWarning, planBudget, type BudgetPlan } from './budget.js';
import { rulesByMethod } from '../../json-diff/diff-rules.js';
import { errorEntry, notComparableEntry, replayedEntry, skippedEntry, type Comparison, type TargetReply } from './entry-outcome.js';
import { FileOrderHandover } from './file-order-handover.js';
import { createPacer, type Pacer } from './pace.js';
import { countEntry, type ProgressState } from './progress.js';
import { readRecording, RecordingInputError, type RecordingFormat } from '../recordings/read-recording.js';
import { RecordingEntryError, type RecordedExchange } from '../recordings/recording.js';
import { shadowPairOf, withShadowMethod } from './shadow-pairs.js';
import type { JsonValue } from '../../shared/json-exact.js';
import { secretsOfRequest, SecretScrubber } from '../../shared/redact.js';
import { redactReportEntry, type ReportEntry } from '../report/entry.js';
import type { RuleUsage } from '../report/json.js';
import { buildReplayRequest, type ReplayRequest } from './request-builder.js';
import type { RuleSet } from '../rules/rules-file.js';
import { isWriteMethod } from '../../legacy-surface/resources-touched.js';
import { decideExchange, type ReplayDecision, type SafetyPolicy } from './safety.js';
import { SummaryBuilder, type ReplaySummary } from '../report/summary.js';
import { ReplayedWrites, type MappedResources } from './write-effects.js';

export interface ReplayRunOptions {
  file: string;
  format?: RecordingFormat;
  /** Base URL the recorded paths are sent to. */
  targetUrl: string;
  /** Replaces recorded keys; undefined: recorded keys are removed and none is sent. */
  apiKey: string | undefined;
  safety: SafetyPolicy;
  rules: RuleSet;
  checkOrder: boolean;
  /** false: an object's key order is not compared (`--no-check-key-order`). Default true. */
  checkKeyOrder?: boolean;
  /** What the target's mappings read and write; undefined: writes keep their order, no read is marked. */
  resources?: MappedResources | undefined;
  concurrency: number;
  ratePerSecond: number | undefined;
  timeoutMs: number;
  hourlyBudget: number;
  /** Aborted: stop sending (and reading), finish the calls in flight, return what was done. */
  signal?: AbortSignal | undefined;
  /**
   * `--shadow-pairs`: nothing is sent; each line answers from itself (its `shadow.candidate`, shadow-pairs.ts).
   * No safety decision (every line is compared), no budget, no write ordering; a line without `shadow` is
   * a RecordingInputError.
   */
  shadowPairs?: boolean;
}

export interface ReplaySinks {
  /** A line for the operator (already scrubbed). */
  warning?(line: string): void;
  progress?(state: ProgressState): void;
  /** Each entry, redacted, in file order; awaited (a slow sink slows the replay, not the memory). */
  entry?(entry: ReportEntry): void | Promise<void>;
  /**
   * Each `different` entry whose recorded reply is JSON, redacted, with that reply as recorded (after
   * `entry`, in file order). The reply holds recorded values: a sink may search it but must show only what
   * the redacted entry shows. Set only when needed: the replies are kept until handed over.
   */
  difference?(entry: ReportEntry, recordedJson: JsonValue): void | Promise<void>;
}

export interface ReplayRunResult {
  summary: ReplaySummary;
  rules: RuleUsage[];
  budget: BudgetPlan | undefined;
  /** Knows every secret of the recording; use it on any further text shown. */
  scrubber: SecretScrubber;
  /** The signal stopped the run before every entry was replayed: the summary covers the entries done. */
  interrupted: boolean;
  /** Entries in the file; undefined when the run was interrupted before the first pass had read them all. */
  entriesInFile: number | undefined;
}

/** Largest reply body read from the target; a bigger one is an `error` entry, not an out-of-memory. */
const MAX_REPLY_BYTES = 32 * 1024 * 1024;

interface ScanResult {
  total: number;
  toReplay: number;
  budgetCounts: Map<string, number>;
  /** Reads after replayed writes of what they read: the operator's warning. */
  writeWarning: string | undefined;
}

/** Follows a call the replay sends: a write is noted, a read is told whether it reads what one wrote. */
function followCall(writes: ReplayedWrites, exchange: RecordedExchange): boolean {
  if (!isWriteMethod(exchange.request.method)) return writes.readsWritten(exchange);
  writes.add(exchange);
  return false;
}

/**
 * Pass 1: validates the whole file (throws RecordingInputError), gathers secrets, counts calls.
 * Undefined when the signal stopped it before the end of the file.
 */
async function scanRecording(options: ReplayRunOptions, scrubber: SecretScrubber): Promise<ScanResult | undefined> {
  let total = 0;
  let toReplay = 0;
  const budgetCounts = new Map<string, number>();
  const writes = new ReplayedWrites(options.resources);
  for await (const exchange of readRecording(options.file, options.format)) {
    if (options.signal?.aborted === true) return undefined;
    total++;
    scrubber.add(...secretsOfExchange(exchange));
    if (options.shadowPairs === true) {
      checkShadowPair(options.file, exchange);
      continue;
    }
    if (decideExchange(exchange, options.safety).replay) {
      toReplay++;
      const key = budgetKey(exchange.request.method, exchange.request.url);
      budgetCounts.set(key, (budgetCounts.get(key) ?? 0) + 1);
      followCall(writes, exchange);
    }
  }
  return { total, toReplay, budgetCounts, writeWarning: writes.warning() };
}

/** Under --shadow-pairs, every line must carry its pair: checked before anything is reported. */
function checkShadowPair(file: string, exchange: RecordedExchange): void {
  try {
    shadowPairOf(exchange);
  } catch (err) {
    if (err instanceof RecordingEntryError) throw new RecordingInputError(`${file}: ${err.message}`);
    throw err;
  }
}

function secretsOfExchange({ request }: RecordedExchange): string[] {
  return secretsOfRequest({
    url: request.url,
    headers: request.headers,
    bodyText: request.body?.kind === 'text' ? request.body.text : undefined,
    bodyJson: request.body?.kind === 'json' ? request.body.value : undefined,
    bodyForm: request.body?.kind === 'form' ? request.body.fields : undefined,
  });
}

function decodeReply(body: Buffer, contentEncoding: string | undefined): string {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  let bytes = body;
  if (encoding === 'gzip' || encoding === 'x-gzip') bytes = zlib.gunzipSync(body);
  else if (encoding === 'deflate') bytes = zlib.inflateSync(body);
  else if (encoding === 'br') bytes = zlib.brotliDecompressSync(body);
  return bytes.toString('utf8');
}

async function readCapped(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_REPLY_BYTES) throw new Error(`reply larger than ${MAX_REPLY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Sends one call, once (never retried), and reads the whole reply. */
async function sendCall(call: ReplayRequest, agent: Agent, timeoutMs: number): Promise<TargetReply> {
  const res = await request(call.url, {
    method: call.method as 'GET',
    headers: call.headers,
    body: call.body ?? null,
    dispatcher: agent,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const encoding = res.headers['content-encoding'];
  const text = decodeReply(await readCapped(res.body), Array.isArray(encoding) ? encoding[0] : encoding);
  return { status: res.statusCode, text };
}

/** One entry on its way to the sinks: the report entry, and the recorded reply when a sink wants it. */
interface ReplayedItem {
  entry: ReportEntry;
  recordedJson?: JsonValue;
}

/** Replays recorded calls to the target and compares the replies, counting the rules each comparison used. */
interface CallReplayer {
  /** `afterWrite`: the call reads what an earlier replayed write changed. */
  replay(exchange: RecordedExchange, afterWrite: boolean): Promise<ReplayedItem>;
  /** Entries each rule applied in, by rule id. */
  readonly ruleHits: ReadonlyMap<number, number>;
  close(): Promise<void>;
}

function createCallReplayer(options: ReplayRunOptions, keepRecordedJson: boolean): CallReplayer {
  if (options.shadowPairs === true) return createShadowPairReplayer(options, keepRecordedJson);
  const agent = new Agent({
    connections: Math.max(1, options.concurrency),
    keepAliveTimeout: 10_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const compare = createComparer(options, keepRecordedJson);
  const replay = async (exchange: RecordedExchange, afterWrite: boolean): Promise<ReplayedItem> => {
    const call = buildReplayRequest(exchange.request, { baseUrl: options.targetUrl, apiKey: options.apiKey });
    let reply: TargetReply;
    try {
      reply = await sendCall(call, agent, options.timeoutMs);
    } catch (err) {
      const e = err as Error & { code?: string };
      return { entry: errorEntry(exchange, `${e.code ? `${e.code}: ` : ''}${e.message}`) };
    }
    return compare.item(exchange, reply, afterWrite);
  };
  return { replay, ruleHits: compare.ruleHits, close: () => agent.close() };
}

/** Compares a reply with the recorded one into the entry handed over, counting the rules used. */
function createComparer(options: ReplayRunOptions, keepRecordedJson: boolean) {
  const comparison: Comparison = {
    rulesFor: rulesByMethod(options.rules),
    checkOrder: options.checkOrder,
    checkKeyOrder: options.checkKeyOrder ?? true,
  };
  const ruleHits = new Map<number, number>();
  const item = (exchange: RecordedExchange, reply: TargetReply, afterWrite: boolean): ReplayedItem => {
    const { entry, matchedRuleIds, recordedJson } = replayedEntry(exchange, reply, comparison, afterWrite);
    for (const id of matchedRuleIds) ruleHits.set(id, (ruleHits.get(id) ?? 0) + 1);
    return keepRecordedJson && recordedJson !== undefined ? { entry, recordedJson } : { entry };
  };
  return { item, ruleHits: ruleHits as ReadonlyMap<number, number> };
}

/** --shadow-pairs: each line answers from itself (its candidate reply); nothing is sent, no connection is opened. */
function createShadowPairReplayer(options: ReplayRunOptions, keepRecordedJson: boolean): CallReplayer {
  const compare = createComparer(options, keepRecordedJson);
  const replay = (exchange: RecordedExchange): Promise<ReplayedItem> => {
    const pair = shadowPairOf(exchange);
    return Promise.resolve(compare.item(withShadowMethod(exchange, pair), pair.candidate, false));
  };
  return { replay, ruleHits: compare.ruleHits, close: async () => undefined };
}

/** The pacer of the calls; with a slow --rate the wait for the next start can be long: an abort ends it. */
function createCallPacer(options: ReplayRunOptions): Pacer {
  const stop = options.signal;
  return createPacer({
    concurrency: options.concurrency,
    ratePerSecond: options.ratePerSecond,
    ...(stop ? { sleep: (ms: number) => sleepFor(ms, undefined, { signal: stop }).catch(() => undefined) } : {}),
  });
}

interface ReplayPassResult {
  summary: ReplaySummary;
  ruleHits: ReadonlyMap<number, number>;
  interrupted: boolean;
}

/** Pass 2: replays what the policy allows, skips the rest, and hands every entry over, redacted, in file order. */
async function replayRecording(
  options: ReplayRunOptions,
  sinks: ReplaySinks,
  scrubber: SecretScrubber,
  entriesInFile: number,
): Promise<ReplayPassResult> {
  const summary = new SummaryBuilder();
  const progress: ProgressState = { done: 0, total: entriesInFile, identical: 0, different: 0, skipped: 0, errors: 0 };
  const handover = new FileOrderHandover<ReplayedItem>(async (item) => {
    const safe = redactReportEntry(item.entry, scrubber);
    summary.add(safe);
    countEntry(progress, safe.outcome);
    await sinks.entry?.(safe);
    if (item.recordedJson !== undefined) await sinks.difference?.(safe, item.recordedJson);
    sinks.progress?.(progress);
  });
  const replayer = createCallReplayer(options, sinks.difference !== undefined);
  try {
    const interrupted = await replayEntries(options, replayer, handover);
    await handover.drain();
    return { summary: summary.result(), ruleHits: replayer.ruleHits, interrupted };
  } finally {
    await handover.settle();
    await replayer.close();
  }
}

/** The entry of a call that is not sent: skipped, or not comparable. */
function unsentEntry(exchange: RecordedExchange, decision: Exclude<ReplayDecision, { replay: true }>): ReportEntry {
  return 'notComparable' in decision ? notComparableEntry(exchange, decision.notComparable) : skippedEntry(exchange, decision.reason);
}

/** Where pass 2 is: the pacer of the calls, the writes sent so far, the entries waiting for their turn. */
interface ReplayPass {
  replayer: CallReplayer;
  handover: FileOrderHandover<ReplayedItem>;
  pacer: Pacer;
  writes: ReplayedWrites;
  /** --shadow-pairs: nothing is sent, so no write changes what a later line reads. */
  shadowPairs: boolean;
  stopped(): boolean;
}

/**
 * Sends one call once the pacer lets it; false when the signal came while it waited (nothing sent). A
 * write waits for every earlier call to be done, and is done before this returns: the recorded order.
 */
async function sendInOrder(pass: ReplayPass, exchange: RecordedExchange): Promise<boolean> {
  const write = isWriteMethod(exchange.request.method);
  if (write) await pass.handover.drain();
  const release = await pass.pacer.acquire();
  // The wait for a free slot (or the rate, or the calls before a write) may have outlasted the signal.
  if (pass.stopped()) {
    release();
    return false;
  }
  const afterWrite = pass.shadowPairs ? false : followCall(pass.writes, exchange);
  const item = pass.replayer
    .replay(exchange, afterWrite)
    .catch((err: unknown): ReplayedItem => ({ entry: errorEntry(exchange, (err as Error).message) }));
  pass.handover.pending(exchange.index, item, release);
  if (write) await pass.handover.drain();
  return true;
}

/**
 * Reads the recording again and starts each call the policy allows. True when the signal stopped it with
 * entries left unread; a signal after the last call was sent loses nothing.
 */
async function replayEntries(options: ReplayRunOptions, replayer: CallReplayer, handover: FileOrderHandover<ReplayedItem>): Promise<boolean> {
  // Results wait in the handover until every earlier entry is out, so sinks see file order. The window bounds it.
  const window = Math.max(64, options.concurrency * 8);
  const pass: ReplayPass = {
    replayer,
    handover,
    pacer: createCallPacer(options),
    writes: new ReplayedWrites(options.resources),
    shadowPairs: options.shadowPairs === true,
    stopped: () => options.signal?.aborted === true,
  };
  for await (const exchange of readRecording(options.file, options.format)) {
    await handover.makeRoom(exchange.index, window);
    if (pass.stopped()) return true;
    const decision: ReplayDecision = pass.shadowPairs ? { replay: true } : decideExchange(exchange, options.safety);
    if (!decision.replay) handover.ready(exchange.index, { entry: unsentEntry(exchange, decision) });
    else if (!(await sendInOrder(pass, exchange))) return true;
    await handover.flush();
  }
  return false;
}

function ruleUsage(rules: RuleSet, hits: ReadonlyMap<number, number>): RuleUsage[] {
  return rules.rules.map((r) => ({ rule: r.label, matchedEntries: hits.get(r.id) ?? 0, origin: r.origin }));
}

export async function runReplay(options: ReplayRunOptions, sinks: ReplaySinks = {}): Promise<ReplayRunResult> {
  const scrubber = new SecretScrubber();
  if (options.apiKey !== undefined) scrubber.add(options.apiKey);
  const scanned = await scanRecording(options, scrubber);
  if (scanned === undefined) {
    const summary = new SummaryBuilder().result();
    return { summary, rules: ruleUsage(options.rules, new Map()), budget: undefined, scrubber, interrupted: true, entriesInFile: undefined };
  }
  const budget = planBudget(scanned.budgetCounts, scanned.toReplay, options.hourlyBudget, options.ratePerSecond);
  if (budget) for (const line of formatBudgetWarning(budget)) sinks.warning?.(scrubber.scrub(line));
  if (scanned.writeWarning !== undefined) sinks.warning?.(scrubber.scrub(scanned.writeWarning));
  scanned.budgetCounts.clear();
  const pass = await replayRecording(options, sinks, scrubber, scanned.total);
  return {
    summary: pass.summary,
    rules: ruleUsage(options.rules, pass.ruleHits),
    budget,
    scrubber,
    interrupted: pass.interrupted,
    entriesInFile: scanned.total,
  };
}
