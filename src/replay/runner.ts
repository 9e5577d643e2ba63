// Runs a replay: reads the recording twice, streamed (first to validate every entry, collect the secrets
// to scrub and count calls for the budget, before any call is made; then to replay), sends each call the
// safety policy allows to the target, diffs the reply and hands redacted entries to the sinks in file
// order. Memory stays flat: at most a window of entries is held, whatever the file's size.
// An aborted `signal` stops it early: no entry is read or sent after it, the calls already in flight
// finish (each bounded by the per-call timeout) and are handed over in file order, and the result says
// `interrupted`.
// It must never replay a call the policy skips, never retry (a payment is made at most once), never
// hand a sink an entry that did not go through redaction, and never call process.exit.
import { setTimeout as sleepFor } from 'node:timers/promises';
import zlib from 'node:zlib';
import { Agent, request } from 'undici';
import { budgetKey, formatBudgetWarning, planBudget, type BudgetPlan } from './budget.js';
import { legacyMethodOf } from './legacy-method.js';
import { createPacer } from './pace.js';
import type { ProgressState } from './progress.js';
import { readRecording, type RecordingFormat } from './read-recording.js';
import type { RecordedExchange } from './recording.js';
import { secretsOfRequest, SecretScrubber } from '../shared/redact.js';
import { diffReplies, parseBody } from './reply-diff.js';
import { redactReportEntry, type ReportEntry } from './report-entry.js';
import type { RuleUsage } from './report-json.js';
import { buildReplayRequest } from './request-builder.js';
import { rulesForMethod, type DiffRules, type RuleSet } from './rules.js';
import { decideReplay, type SafetyPolicy } from './safety.js';
import { SummaryBuilder, type ReplaySummary } from './summary.js';

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
  concurrency: number;
  ratePerSecond: number | undefined;
  timeoutMs: number;
  hourlyBudget: number;
  /** Aborted: stop sending (and reading), finish the calls in flight, return what was done. */
  signal?: AbortSignal | undefined;
}

export interface ReplaySinks {
  /** A line for the operator (already scrubbed). */
  warning?(line: string): void;
  progress?(state: ProgressState): void;
  /** Each entry, redacted, in file order; awaited (a slow sink slows the replay, not the memory). */
  entry?(entry: ReportEntry): void | Promise<void>;
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
}

/**
 * Pass 1: validates the whole file (throws RecordingInputError), gathers secrets, counts calls.
 * Undefined when the signal stopped it before the end of the file.
 */
async function scan(options: ReplayRunOptions, scrubber: SecretScrubber): Promise<ScanResult | undefined> {
  let total = 0;
  let toReplay = 0;
  const budgetCounts = new Map<string, number>();
  for await (const exchange of readRecording(options.file, options.format)) {
    if (options.signal?.aborted === true) return undefined;
    total++;
    const req = exchange.request;
    scrubber.add(
      ...secretsOfRequest({
        url: req.url,
        headers: req.headers,
        bodyText: req.body?.kind === 'text' ? req.body.text : undefined,
        bodyJson: req.body?.kind === 'json' ? req.body.value : undefined,
        bodyForm: req.body?.kind === 'form' ? req.body.fields : undefined,
      }),
    );
    if (decision(exchange, options.safety).replay) {
      toReplay++;
      const key = budgetKey(req.method, req.url);
      budgetCounts.set(key, (budgetCounts.get(key) ?? 0) + 1);
    }
  }
  return { total, toReplay, budgetCounts };
}

function decision(exchange: RecordedExchange, safety: SafetyPolicy): ReturnType<typeof decideReplay> {
  return decideReplay(
    {
      method: exchange.request.method,
      url: exchange.request.url,
      hasRecordedReply: exchange.response.body !== undefined,
      recordedStatus: exchange.response.status,
    },
    safety,
  );
}

function hasRules(rules: DiffRules): boolean {
  return rules.ignore.length + rules.unordered.length + rules.tolerance.length > 0;
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

export async function runReplay(options: ReplayRunOptions, sinks: ReplaySinks = {}): Promise<ReplayRunResult> {
  const scrubber = new SecretScrubber();
  if (options.apiKey !== undefined) scrubber.add(options.apiKey);
  const warn = (line: string): void => sinks.warning?.(scrubber.scrub(line));

  const ruleUsage = (hits: ReadonlyMap<number, number>): RuleUsage[] =>
    options.rules.rules.map((r) => ({ rule: r.label, matchedEntries: hits.get(r.id) ?? 0 }));

  const scanned = await scan(options, scrubber);
  if (scanned === undefined) {
    return { summary: new SummaryBuilder().result(), rules: ruleUsage(new Map()), budget: undefined, scrubber, interrupted: true, entriesInFile: undefined };
  }
  const budget = planBudget(scanned.budgetCounts, scanned.toReplay, options.hourlyBudget, options.ratePerSecond);
  if (budget) for (const line of formatBudgetWarning(budget)) warn(line);
  scanned.budgetCounts.clear();

  const summary = new SummaryBuilder();
  const ruleHits = new Map<number, number>();
  const rulesByMethod = new Map<string, DiffRules>();
  const rulesFor = (method: string): DiffRules => {
    let rules = rulesByMethod.get(method);
    if (!rules) {
      rules = rulesForMethod(options.rules, method);
      rulesByMethod.set(method, rules);
    }
    return rules;
  };
  const progress: ProgressState = { done: 0, total: scanned.total, identical: 0, different: 0, skipped: 0, errors: 0 };

  const agent = new Agent({
    connections: Math.max(1, options.concurrency),
    keepAliveTimeout: 10_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const stopSignal = options.signal;
  const stopped = (): boolean => stopSignal?.aborted === true;
  const pacer = createPacer({
    concurrency: options.concurrency,
    ratePerSecond: options.ratePerSecond,
    // With a slow --rate the wait for the next start can be long: an abort ends it at once.
    ...(stopSignal ? { sleep: (ms: number) => sleepFor(ms, undefined, { signal: stopSignal }).catch(() => undefined) } : {}),
  });

  const replayOne = async (exchange: RecordedExchange): Promise<ReportEntry> => {
    const legacyMethod = legacyMethodOf(exchange.request.url);
    const base = { index: exchange.index, method: exchange.request.method, url: exchange.request.url, legacyMethod };
    const call = buildReplayRequest(exchange.request, { baseUrl: options.targetUrl, apiKey: options.apiKey });
    let status: number;
    let text: string;
    try {
      const res = await request(call.url, {
        method: call.method as 'GET',
        headers: call.headers,
        body: call.body ?? null,
        dispatcher: agent,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      status = res.statusCode;
      const encoding = res.headers['content-encoding'];
      text = decodeReply(await readCapped(res.body), Array.isArray(encoding) ? encoding[0] : encoding);
    } catch (err) {
      const e = err as Error & { code?: string };
      return { ...base, outcome: 'error', diffs: [], error: `${e.code ? `${e.code}: ` : ''}${e.message}` };
    }
    const rules = rulesFor(legacyMethod);
    const recorded = exchange.response.body ?? { kind: 'text' as const, text: '' };
    const statusPair = { expected: exchange.response.status, actual: status };
    // The same bytes are the same reply: no parse, no diff. Only without rules, whose use is counted.
    if (recorded.kind === 'text' && recorded.text === text && status === exchange.response.status && !hasRules(rules)) {
      return { ...base, outcome: 'identical', diffs: [], status: statusPair };
    }
    const result = diffReplies(
      { status: exchange.response.status, body: recorded.kind === 'text' ? parseBody(recorded.text) : recorded },
      { status, body: parseBody(text) },
      { rules, checkOrder: options.checkOrder },
    );
    for (const id of result.matchedRuleIds) ruleHits.set(id, (ruleHits.get(id) ?? 0) + 1);
    return {
      ...base,
      outcome: result.differences.length === 0 ? 'identical' : 'different',
      diffs: result.differences,
      status: statusPair,
    };
  };

  // Results wait here until every earlier entry is out, so sinks see file order. The window bounds it.
  const window = Math.max(64, options.concurrency * 8);
  const finished = new Map<number, ReportEntry>();
  let nextToEmit = 0;
  const inFlight = new Set<Promise<void>>();
  // Level-triggered: a completion that happens while nobody waits is not lost.
  let signalled = false;
  let waiter: (() => void) | undefined;
  const signal = (): void => {
    signalled = true;
    const w = waiter;
    waiter = undefined;
    w?.();
  };
  const nextCompletion = async (): Promise<void> => {
    if (!signalled) await new Promise<void>((resolve) => (waiter = resolve));
    signalled = false;
  };

  const emitReady = async (): Promise<void> => {
    for (let entry = finished.get(nextToEmit); entry !== undefined; entry = finished.get(nextToEmit)) {
      finished.delete(nextToEmit);
      nextToEmit++;
      const safe = redactReportEntry(entry, scrubber);
      summary.add(safe);
      progress.done++;
      if (safe.outcome === 'identical') progress.identical++;
      else if (safe.outcome === 'different') progress.different++;
      else if (safe.outcome === 'skipped') progress.skipped++;
      else progress.errors++;
      await sinks.entry?.(safe);
      sinks.progress?.(progress);
    }
  };

  // Set only when the signal left entries unread: a signal after the last call was sent loses nothing.
  let interrupted = false;
  try {
    for await (const exchange of readRecording(options.file, options.format)) {
      while (exchange.index - nextToEmit >= window) {
        await nextCompletion();
        await emitReady();
      }
      if (stopped()) {
        interrupted = true;
        break;
      }
      const verdict = decision(exchange, options.safety);
      if (!verdict.replay) {
        finished.set(exchange.index, {
          index: exchange.index,
          method: exchange.request.method,
          url: exchange.request.url,
          legacyMethod: legacyMethodOf(exchange.request.url),
          outcome: 'skipped',
          diffs: [],
          reason: verdict.reason,
        });
      } else {
        const release = await pacer.acquire();
        // The wait for a free slot (or the rate) may have outlasted the signal: this call is not sent.
        if (stopped()) {
          release();
          interrupted = true;
          break;
        }
        const task: Promise<void> = replayOne(exchange)
          .catch((err: unknown): ReportEntry => ({
            index: exchange.index,
            method: exchange.request.method,
            url: exchange.request.url,
            legacyMethod: legacyMethodOf(exchange.request.url),
            outcome: 'error',
            diffs: [],
            error: (err as Error).message,
          }))
          .then((entry) => {
            finished.set(exchange.index, entry);
          })
          .finally(() => {
            release();
            inFlight.delete(task);
            signal();
          });
        inFlight.add(task);
      }
      await emitReady();
    }
    while (inFlight.size > 0) {
      await nextCompletion();
      await emitReady();
    }
    await emitReady();
  } finally {
    await Promise.allSettled([...inFlight]);
    await agent.close();
  }

  return { summary: summary.result(), rules: ruleUsage(ruleHits), budget, scrubber, interrupted, entriesInFile: scanned.total };
}
