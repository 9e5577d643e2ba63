// Shadow mappings (SHADOW_MAPPINGS_DIR): every translated read is translated a second time by the candidate
// set's mapping of the same legacy method, from the same v1 replies, and the two legacy reply texts are
// compared with the type-exact JSON diff (src/json-diff/, pure). The read route keeps what its `v1Get`
// port answered only when shadow is on (`forMethod` gives it a capture; off, it gets none and keeps nothing);
// the comparison runs after the reply has been written (a setImmediate after the route's write), at most
// MAX_IN_FLIGHT at a time with at most MAX_QUEUED waiting; past that it is counted `skipped` and dropped.
// The candidate never reaches v1: its `v1Get` answers from the recorded replies, and a call the served
// mapping did not make is counted `candidate_needed_other_v1_call` and ends the comparison. Team listings
// (sorted lists) are counted `skipped`: their roster cache answers most calls without any v1 reply to record.
// Reads only: the payment is never shadowed. The candidate set is replaced as a whole by `replace(set)` (a
// reload of SHADOW_MAPPINGS_DIR); comparisons already queued run against the set they find.
import type { V1Record } from '../../mapping/legacy-record.js';
import type { MappingSet } from '../../mapping/mapping-set.js';
import { compileMapping, runMappingText, type CompiledMapping, type LegacyCall } from '../../mapping/run.js';
import type { Mapping } from '../../mapping/schema.js';
import type { V1Call } from '../../mapping/v1-reply.js';
import { diffReplies, parseBody } from '../../json-diff/reply-diff.js';
import { handOff } from '../../shared/hand-off.js';
import type { RequestContext } from '../edge/request-context.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { ShadowDiffFile } from './diff-file.js';

export const MAX_IN_FLIGHT = 2;
export const MAX_QUEUED = 64;

/** What one read's `v1Get` port answered, by call; then handed to the comparison once the reply is out. */
export interface ShadowCapture {
  /** Keeps one v1 reply's parsed body (the read's own, not a copy: nothing reads it but the candidate). */
  record(call: V1Call, body: unknown): void;
  /** The read succeeded with `served`: queue the candidate's translation and the comparison. */
  compare(ctx: RequestContext, call: LegacyCall, served: string): void;
}

export interface ShadowReads {
  /** A capture for one read of this mapping (undefined: a team listing, never compared). */
  forMethod(mapping: Mapping): ShadowCapture | undefined;
  /** The candidate set from now on (compiled here, once). */
  replace(set: MappingSet): void;
  /** Resolves when no comparison is queued or running (tests, shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface ShadowOptions {
  candidates: MappingSet;
  metrics: GatewayMetrics;
  accountTimezone: string | undefined;
  staticRecords: (setting: string) => readonly V1Record[] | undefined;
  diffFile?: ShadowDiffFile | undefined;
  maxInFlight?: number;
  maxQueued?: number;
}

/** One v1 call as a key: its path and its query, in a fixed order. */
export function v1CallKey(call: V1Call): string {
  const query = Object.entries(call.query ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${call.path}?${new URLSearchParams(query).toString()}`;
}

interface ShadowJob {
  method: string;
  ctx: RequestContext;
  call: LegacyCall;
  replies: Map<string, unknown>;
  served: string;
}

/** The candidate asked v1 for something the served mapping did not. */
class OtherV1Call extends Error {}

function compileAll(set: MappingSet): Map<string, CompiledMapping> {
  return new Map([...set].map(([method, mapping]) => [method, compileMapping(mapping)]));
}

/** Translates the read again with the candidate mapping, from the recorded v1 replies, and compares. */
async function compare(job: ShadowJob, compiled: CompiledMapping | undefined, options: ShadowOptions): Promise<void> {
  const { metrics } = options;
  if (!compiled) return metrics.shadowRead(job.method, 'skipped');
  let text: string;
  try {
    const reply = await runMappingText(compiled, job.call, {
      accountTimezone: options.accountTimezone,
      staticRecords: options.staticRecords,
      v1Get: async (v1Call) => {
        const key = v1CallKey(v1Call);
        if (!job.replies.has(key)) throw new OtherV1Call();
        return handOff(job.replies.get(key));
      },
    });
    // Without v1GetBytes the engine writes text.
    text = reply.take().toString();
  } catch (err) {
    return metrics.shadowRead(job.method, err instanceof OtherV1Call ? 'candidate_needed_other_v1_call' : 'failed');
  }
  if (text === job.served) return metrics.shadowRead(job.method, 'same');
  const { differences } = diffReplies({ status: 200, body: parseBody(job.served) }, { status: 200, body: parseBody(text) });
  metrics.shadowRead(job.method, 'different');
  const kinds = new Map<string, number>();
  for (const d of differences) kinds.set(d.kind, (kinds.get(d.kind) ?? 0) + 1);
  for (const [kind, count] of kinds) metrics.shadowDifference(job.method, kind, count);
  options.diffFile?.offer({ method: job.method, ctx: job.ctx, served: job.served, candidate: text, differences });
}

export function createShadowReads(options: ShadowOptions): ShadowReads {
  const { metrics } = options;
  const maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  const maxQueued = options.maxQueued ?? MAX_QUEUED;
  let candidates = compileAll(options.candidates);
  const queue: ShadowJob[] = [];
  let running = 0;
  let idleWaiters: Array<() => void> = [];

  const settle = (): void => {
    if (running > 0 || queue.length > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const run = (job: ShadowJob): Promise<void> => compare(job, candidates.get(job.method), options);

  function pump(): void {
    while (running < maxInFlight && queue.length > 0) {
      const job = queue.shift() as ShadowJob;
      running++;
      // After the route's write: the read's continuation writes the reply before any immediate runs.
      setImmediate(() => {
        run(job)
          .catch(() => metrics.shadowRead(job.method, 'failed'))
          .finally(() => {
            running--;
            pump();
            settle();
          });
      });
    }
  }

  function idle(): Promise<void> {
    if (running === 0 && queue.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => idleWaiters.push(resolve));
  }

  function enqueue(job: ShadowJob): void {
    if (queue.length >= maxQueued) return metrics.shadowRead(job.method, 'skipped');
    queue.push(job);
    pump();
  }

  return {
    forMethod(mapping) {
      const method = mapping.method;
      if (mapping.kind === 'sorted-list') {
        return { record: () => undefined, compare: () => metrics.shadowRead(method, 'skipped') };
      }
      const replies = new Map<string, unknown>();
      return {
        record: (call, body) => void replies.set(v1CallKey(call), body),
        compare: (ctx, call, served) => enqueue({ method, ctx, call, replies, served }),
      };
    },
    replace(set) {
      candidates = compileAll(set);
    },
    idle,
    async close() {
      queue.length = 0;
      await idle();
      await options.diffFile?.close();
    },
  };
}
