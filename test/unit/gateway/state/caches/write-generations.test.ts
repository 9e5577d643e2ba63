// The write generations behind read-after-write: '' until a write, a new token per write for that API key
// and resource only, never one used before; forgotten once no copy made before the write may be served.
// With a shared store: a write stores its token, another replica adopts it when it confirms; an answer read
// before this process's own write, a missing one, or one read while its own write could not be stored is
// never adopted over its own token; store faults are told once per change, never thrown.
import { describe, expect, it } from 'vitest';
import { createWriteGenerations, type SharedGenerationStore, type WriteGenerationsOptions } from '../../../../../src/gateway/state/caches/write-generations.js';

const KEEP_MS = 10_000;

/** A store shared by "replicas" (a map), whose calls can be made to fail or to wait for the test. */
function fakeStore() {
  const tokens = new Map<string, string>();
  const state = { failing: false, reads: 0, writes: [] as Array<{ id: string; token: string; keepMs: number }>, held: undefined as Promise<void> | undefined };
  const store: SharedGenerationStore = {
    async read(id) {
      state.reads++;
      const answer = tokens.get(id) ?? null;
      if (state.held) await state.held;
      if (state.failing) throw new Error('down');
      return answer;
    },
    async write(id, token, keepMs) {
      if (state.failing) throw new Error('down');
      state.writes.push({ id, token, keepMs });
      tokens.set(id, token);
    },
  };
  return Object.assign(state, { store, tokens });
}

function replica(store?: SharedGenerationStore, options: Partial<WriteGenerationsOptions> = {}) {
  let t = 1_000_000;
  const faults: boolean[] = [];
  const generations = createWriteGenerations({ keepMs: KEEP_MS, now: () => t, onSharedFault: (failing) => faults.push(failing), ...(store ? { shared: store } : {}), ...options });
  return { generations, faults, advance: (ms: number) => void (t += ms) };
}

describe('write generations in one process', () => {
  it("are '' until a write, then new for that API key and resource only, never the same twice", async () => {
    const { generations: g } = replica();
    expect(g.current('key-a', 'clients')).toBe('');
    await g.bump('key-a', ['clients', 'payments']);
    const first = g.current('key-a', 'clients');
    expect(first).not.toBe('');
    expect(g.current('key-a', 'payments')).not.toBe(first);
    expect([g.current('key-b', 'clients'), g.current(undefined, 'clients'), g.current('key-a', 'staff')]).toEqual(['', '', '']);
    await g.bump('key-a', ['clients']);
    expect(g.current('key-a', 'clients')).not.toBe(first);
    expect(await g.confirm('key-a', 'clients')).toBe(g.current('key-a', 'clients'));
  });

  it('forgets a generation once the keep window has passed since it changed', async () => {
    const r = replica();
    await r.generations.bump('key-a', ['clients']);
    r.advance(KEEP_MS - 1);
    expect(r.generations.current('key-a', 'clients')).not.toBe('');
    r.advance(1);
    expect(r.generations.current('key-a', 'clients')).toBe('');
  });

  it('is bounded: past maxEntries the oldest is forgotten', async () => {
    const { generations: g } = replica(undefined, { maxEntries: 2 });
    await g.bump('key-a', ['clients']);
    await g.bump('key-b', ['clients']);
    await g.bump('key-c', ['clients']);
    expect(g.current('key-a', 'clients')).toBe('');
    expect(g.current('key-c', 'clients')).not.toBe('');
  });
});

describe('write generations shared by replicas', () => {
  it('a write stores its token for the keep window; another replica adopts it when it confirms', async () => {
    const shared = fakeStore();
    const a = replica(shared.store);
    const b = replica(shared.store);
    await a.generations.bump('key-a', ['clients']);
    const token = a.generations.current('key-a', 'clients');
    expect(shared.writes).toEqual([{ id: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as string, token, keepMs: KEEP_MS }]);
    expect(b.generations.current('key-a', 'clients')).toBe('');
    expect(await b.generations.confirm('key-a', 'clients')).toBe(token);
    expect(b.generations.current('key-a', 'clients')).toBe(token);
    expect(await b.generations.confirm('key-b', 'clients')).toBe('');
  });

  it('never adopts an answer read before its own write, nor a missing one over a token it holds', async () => {
    const shared = fakeStore();
    const a = replica(shared.store);
    const b = replica(shared.store);
    await b.generations.bump('key-a', ['clients']);
    let release = () => undefined as void;
    shared.held = new Promise<void>((resolve) => (release = resolve));
    const asked = a.generations.confirm('key-a', 'clients');
    // Concurrent confirms of one key and resource share one read.
    const again = a.generations.confirm('key-a', 'clients');
    shared.held = undefined;
    await a.generations.bump('key-a', ['clients']);
    const own = a.generations.current('key-a', 'clients');
    release();
    expect([await asked, await again]).toEqual([own, own]);
    expect(shared.reads).toBe(1);

    shared.tokens.clear(); // expired, or a Redis that lost its data
    expect(await a.generations.confirm('key-a', 'clients')).toBe(own);
  });

  it('a store fault on a write: its own token at once, the shared one ignored for the keep window, told once', async () => {
    const shared = fakeStore();
    const a = replica(shared.store);
    const b = replica(shared.store);
    await a.generations.bump('key-a', ['clients']);
    const before = a.generations.current('key-a', 'clients');
    shared.failing = true;
    await expect(a.generations.bump('key-a', ['clients'])).resolves.toBeUndefined();
    await a.generations.bump('key-a', ['clients']);
    const own = a.generations.current('key-a', 'clients');
    expect(own).not.toBe(before);
    expect(a.faults).toEqual([true]);
    expect(await a.generations.confirm('key-a', 'clients')).toBeUndefined();

    shared.failing = false;
    // What the store holds is from before this replica's write: not adopted while a copy made before it may be served.
    expect(await a.generations.confirm('key-a', 'clients')).toBe(own);
    await b.generations.bump('key-a', ['clients']);
    expect(await a.generations.confirm('key-a', 'clients')).toBe(own);
    a.advance(KEEP_MS);
    expect(await a.generations.confirm('key-a', 'clients')).toBe(b.generations.current('key-a', 'clients'));

    await a.generations.bump('key-a', ['payments']);
    expect(a.faults).toEqual([true, false]);
  });
});
