// Reloading mapping sets without a restart (SIGHUP, `legacy-gateway serve`; `reload()` of the library's
// router). Each reloadable set (MAPPINGS_DIR, and any set registered beside it, such as the shadow mappings)
// is a `ReloadableSet`: its `reload()` reads and validates its files again and, when they are valid, swaps
// what it serves in one assignment; when they are not, it throws and the set in service stays. This module
// runs the sets one after the other, counts each result (`legacy_gateway_mapping_reloads_total`) and logs one
// line per set: what took over, or the file and the reason it was refused. A reload asked for while one runs
// runs once more after it (two signals in a row never read the files twice at once, nor miss a change).
import type { Logger } from 'pino';
import { MappingSetError, type MappingProblem } from '../../mapping/mapping-set.js';
import { StaticFileError } from '../loaders/static-records.js';
import type { GatewayMetrics, MappingReloadResult } from '../metrics/gateway-metrics.js';

/** What a set's reload reports once its new files took over. */
export interface SetTookOver {
  /** A short SHA-256 of the files now served. */
  digest: string;
  /** The number of legacy methods now served (logged). */
  mappings?: number;
}

export interface ReloadableSet {
  /** The setting that names its files, as it is logged: `MAPPINGS_DIR`, `SHADOW_MAPPINGS_DIR`. */
  name: string;
  /** Reads and validates the set's files again and swaps them in; throws MappingSetError (or StaticFileError)
   * when they are invalid, anything else when they cannot be read or built: the set in service then stays. */
  reload(): Promise<SetTookOver>;
}

/** How one set's reload ended. */
export type SetReload =
  | ({ set: string; result: 'ok'; previous: string | undefined } & SetTookOver)
  | { set: string; result: 'invalid'; problems: MappingProblem[] }
  | { set: string; result: 'error'; message: string };

/** One reload of every registered set: `result` is the worst of theirs (`ok` when each took over). */
export interface ReloadResult {
  result: MappingReloadResult;
  sets: SetReload[];
}

export interface MappingReloads {
  /** Adds a set reloaded with the others (after them, in the order registered); returns its removal. */
  register(set: ReloadableSet): () => void;
  /** Reloads every set; never rejects. */
  reload(): Promise<ReloadResult>;
}

/** A failed reload as a result: a validation problem (MappingSetError, a bad operator file) is `invalid`. */
export function classifyFailure(set: string, err: unknown): SetReload {
  if (err instanceof MappingSetError) return { set, result: 'invalid', problems: err.problems };
  if (err instanceof StaticFileError) return { set, result: 'invalid', problems: [{ file: '', path: '', reason: err.message }] };
  return { set, result: 'error', message: err instanceof Error ? err.message.split('\n')[0] ?? '' : String(err) };
}

/** A problem as one phrase: `records/client.yaml: fields.4.from: reason`. */
export const describeProblem = (p: MappingProblem): string => [p.file, p.path, p.reason].filter((part) => part !== '').join(': ');

/** The one log line of a set's reload: its fields and message. */
export function reloadLogLine(outcome: SetReload): { level: 'info' | 'error'; fields: Record<string, unknown>; msg: string } {
  switch (outcome.result) {
    case 'ok':
      return {
        level: 'info',
        fields: { set: outcome.set, digest: outcome.digest, previous: outcome.previous, mappings: outcome.mappings, changed: outcome.digest !== outcome.previous },
        msg: `${outcome.set}: mappings reloaded`,
      };
    case 'invalid': {
      const [first] = outcome.problems;
      return {
        level: 'error',
        fields: { set: outcome.set, file: first?.file, path: first?.path, reason: first?.reason, problems: outcome.problems.length },
        msg: `${outcome.set}: mappings reload refused, the set in service stays: ${outcome.problems.map(describeProblem).join('; ')}`,
      };
    }
    case 'error':
      return { level: 'error', fields: { set: outcome.set, err: outcome.message }, msg: `${outcome.set}: mappings reload failed, the set in service stays: ${outcome.message}` };
  }
}

const SEVERITY: Record<MappingReloadResult, number> = { ok: 0, invalid: 1, error: 2 };

/** The worst result of a reload's sets (`ok` with none). */
export const worstResult = (sets: readonly SetReload[]): MappingReloadResult =>
  sets.reduce<MappingReloadResult>((worst, s) => (SEVERITY[s.result] > SEVERITY[worst] ? s.result : worst), 'ok');

export interface MappingReloadsOptions {
  logger: Logger;
  metrics: Pick<GatewayMetrics, 'mappingReload'>;
  /** The digests of the sets in service at start, by set name (the `previous` of their first reload). */
  digests?: Record<string, string>;
}

export function createMappingReloads(options: MappingReloadsOptions): MappingReloads {
  const { logger, metrics } = options;
  const sets: ReloadableSet[] = [];
  const digests = new Map<string, string>(Object.entries(options.digests ?? {}));
  let running: Promise<ReloadResult> | undefined;
  let queued: Promise<ReloadResult> | undefined;

  async function reloadOne(set: ReloadableSet): Promise<SetReload> {
    let outcome: SetReload;
    try {
      const tookOver = await set.reload();
      outcome = { set: set.name, result: 'ok', previous: digests.get(set.name), ...tookOver };
      digests.set(set.name, tookOver.digest);
    } catch (err) {
      outcome = classifyFailure(set.name, err);
    }
    metrics.mappingReload(outcome.result);
    const line = reloadLogLine(outcome);
    logger[line.level](line.fields, line.msg);
    return outcome;
  }

  async function runAll(): Promise<ReloadResult> {
    const results: SetReload[] = [];
    for (const set of [...sets]) results.push(await reloadOne(set));
    return { result: worstResult(results), sets: results };
  }

  function reload(): Promise<ReloadResult> {
    if (!running) {
      running = runAll().finally(() => {
        running = undefined;
      });
      return running;
    }
    // One more run after the one in progress (which may have read the files before they changed); any
    // number of requests meanwhile share it.
    queued ??= running.then(() => {
      queued = undefined;
      return reload();
    });
    return queued;
  }

  return {
    register(set) {
      sets.push(set);
      return () => {
        const at = sets.indexOf(set);
        if (at >= 0) sets.splice(at, 1);
      };
    },
    reload,
  };
}
