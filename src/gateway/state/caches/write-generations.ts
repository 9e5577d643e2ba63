// Read-after-write for one API key. Every translated read is cached under the write generation of its v1
// resource for the calling API key, folded into the cache keys (the response cache's and single-flight's,
// the reply cache's, the roster cache's); a write that reached v1 moves the generation of each resource it
// changed on (legacy-surface/resources-touched.ts says which). A read that starts after the write then misses
// every copy made before it and never joins a v1 call made before it; other API keys' copies stay.
// A generation is an opaque token, never used twice: '' before any write, then a new one per write. A
// counter would start again once its Redis key expired, and could meet a copy made under an earlier life
// of the same number that is still fresh.
// With a shared store (REDIS_URL) a write also stores its token there (kept the longest TTL plus the
// stale-if-error window), and another replica adopts it when it next asks the shared tier: when its own
// copy's L1 lifetime ends, never on an L1 hit. A token this process is still storing, or could not store,
// is never traded for what the store said before: after a store fault this process keeps its own token for
// that key and resource until every copy made before the write has aged out (a fault is logged once, not
// per write).
// Entries are keyed by a hash of API key + resource (the key never in clear) and bounded. An entry is
// forgotten once the longest TTL plus the stale-if-error window has passed since it last changed: no copy
// made under an earlier generation may then be served, fresh or stale, so forgetting it is safe.
import { randomBytes } from 'node:crypto';
import { cacheKey } from './cache-key.js';
import { LRUCache } from 'lru-cache';

/** The generations every replica sees (Redis): one token per hash of API key + resource. */
export interface SharedGenerationStore {
  /** The stored token, or null when there is none; rejects when the store cannot answer. */
  read(id: string): Promise<string | null>;
  /** Stores `token` for `keepMs`; rejects when the store cannot take it. */
  write(id: string, token: string, keepMs: number): Promise<void>;
}

export interface WriteGenerations {
  /** The generation reads of `resource` by `apiKey` are keyed under in this process now. No I/O. */
  current(apiKey: string | undefined, resource: string): string;
  /** The generation to read under after asking the shared store (adopting another replica's write);
   * undefined when the store cannot say. Without a shared store: `current`. Never rejects. */
  confirm(apiKey: string | undefined, resource: string): Promise<string | undefined>;
  /** After a write that reached v1: moves each resource's generation on, here at once, then in the shared
   * store; resolves once the store has it or failed. Never rejects. */
  bump(apiKey: string | undefined, resources: readonly string[]): Promise<void>;
}

export interface WriteGenerationsOptions {
  /** How long a generation matters after it changed: the longest cache TTL plus the stale-if-error window. */
  keepMs: number;
  shared?: SharedGenerationStore;
  /** Told when writing to the shared store starts failing (true) and when it works again (false). */
  onSharedFault?: (failing: boolean) => void;
  maxEntries?: number;
  now?: () => number;
}

/** Writes of 100,000 (API key, resource) pairs within the keep window; past that the oldest is forgotten. */
export const DEFAULT_MAX_GENERATIONS = 100_000;

interface Entry {
  token: string;
  /** This process's writes so far: a shared answer read before the latest one is not adopted. */
  writes: number;
  /** This process's writes whose token the shared store may not hold yet. */
  storing: number;
  /** Until when the shared store's token is ignored (a write of this process could not reach it). */
  ownUntil: number;
  /** When the entry may be forgotten. */
  keepUntil: number;
}

export function createWriteGenerations(options: WriteGenerationsOptions): WriteGenerations {
  const now = options.now ?? Date.now;
  const { keepMs, shared } = options;
  const entries = new LRUCache<string, Entry>({ max: options.maxEntries ?? DEFAULT_MAX_GENERATIONS });
  // Unique across replicas (a random prefix) and within this process (a sequence).
  const prefix = randomBytes(9).toString('base64url');
  let sequence = 0;
  let failing = false;
  const confirming = new Map<string, Promise<string | undefined>>();

  const idOf = (apiKey: string | undefined, resource: string): string => cacheKey(apiKey, resource);
  const live = (id: string): Entry | undefined => {
    const entry = entries.get(id);
    if (entry !== undefined && now() >= entry.keepUntil) entries.delete(id);
    return entry !== undefined && now() < entry.keepUntil ? entry : undefined;
  };
  const faultChanged = (nowFailing: boolean): void => {
    if (failing === nowFailing) return;
    failing = nowFailing;
    options.onSharedFault?.(nowFailing);
  };

  const bumpOne = async (id: string): Promise<void> => {
    const entry = live(id) ?? { token: '', writes: 0, storing: 0, ownUntil: 0, keepUntil: 0 };
    entry.token = `${prefix}.${(++sequence).toString(36)}`;
    entry.writes += 1;
    entry.keepUntil = now() + keepMs;
    entries.set(id, entry);
    if (!shared) return;
    entry.storing += 1;
    try {
      await shared.write(id, entry.token, keepMs);
      faultChanged(false);
    } catch {
      entry.ownUntil = now() + keepMs;
      faultChanged(true);
    } finally {
      entry.storing -= 1;
    }
  };

  const ask = async (id: string, store: SharedGenerationStore): Promise<string | undefined> => {
    const writesBefore = live(id)?.writes ?? 0;
    let stored: string | null;
    try {
      stored = await store.read(id);
    } catch {
      return undefined;
    }
    const entry = live(id);
    const own = entry?.token ?? '';
    // This process wrote since the question was asked, or its token may not be (or could not be) stored.
    if (entry !== undefined && (entry.writes !== writesBefore || entry.storing > 0 || now() < entry.ownUntil)) return own;
    // None stored (expired, or a Redis that lost its data) never takes back a token this process holds.
    if (stored === null || stored === '' || stored === own) return own;
    entries.set(id, { token: stored, writes: entry?.writes ?? 0, storing: 0, ownUntil: 0, keepUntil: now() + keepMs });
    return stored;
  };

  const current = (apiKey: string | undefined, resource: string): string =>
    // No write known here yet (the usual state): no hash to compute.
    entries.size === 0 ? '' : (live(idOf(apiKey, resource))?.token ?? '');

  return {
    current,
    confirm(apiKey, resource) {
      if (!shared) return Promise.resolve(current(apiKey, resource));
      const id = idOf(apiKey, resource);
      const waiting = confirming.get(id);
      if (waiting) return waiting;
      const asked = ask(id, shared).finally(() => confirming.delete(id));
      confirming.set(id, asked);
      return asked;
    },
    async bump(apiKey, resources) {
      await Promise.all(resources.map((resource) => bumpOne(idOf(apiKey, resource))));
    },
  };
}
