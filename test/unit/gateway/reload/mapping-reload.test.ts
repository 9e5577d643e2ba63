// The reload of mapping sets (SIGHUP), its pure parts: a failure's result (a validation problem is `invalid`,
// anything else `error`), the one log line of each set's reload, the worst result of a reload, and the
// coordinator: every set reloaded in order, each result counted once, a failing set leaving the others alone,
// and reloads asked for while one runs coalesced into one more run after it. The loader's digest: the same
// files give the same digest, one changed byte another.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMappingDirectorySync } from '../../../../src/gateway/loaders/mapping-files.js';
import { StaticFileError } from '../../../../src/gateway/loaders/static-records.js';
import type { MappingReloadResult } from '../../../../src/gateway/metrics/gateway-metrics.js';
import { classifyFailure, createMappingReloads, reloadLogLine, worstResult, type SetTookOver } from '../../../../src/gateway/reload/mapping-reload.js';
import { MappingSetError } from '../../../../src/mapping/mapping-set.js';

interface Logged {
  level: string;
  fields: Record<string, unknown>;
  msg: string;
}

function recordingLogger(): { logger: Logger; lines: Logged[] } {
  const lines: Logged[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => void lines.push({ level, fields, msg });
  return { logger: { info: at('info'), error: at('error'), warn: at('warn') } as unknown as Logger, lines };
}

function countingMetrics(): { metrics: { mappingReload(result: MappingReloadResult): void }; counted: MappingReloadResult[] } {
  const counted: MappingReloadResult[] = [];
  return { metrics: { mappingReload: (result) => void counted.push(result) }, counted };
}

const invalid = new MappingSetError([{ file: 'records/client.yaml', path: 'fields.4.from', reason: 'Invalid input' }]);

describe('classifyFailure', () => {
  it('makes a MappingSetError invalid, with its problems', () => {
    expect(classifyFailure('MAPPINGS_DIR', invalid)).toEqual({ set: 'MAPPINGS_DIR', result: 'invalid', problems: invalid.problems });
  });

  it("makes a bad operator file invalid, its message the reason", () => {
    const outcome = classifyFailure('MAPPINGS_DIR', new StaticFileError('TESTIMONIALS_FILE (/x.json): not a readable JSON file'));
    expect(outcome).toEqual({ set: 'MAPPINGS_DIR', result: 'invalid', problems: [{ file: '', path: '', reason: 'TESTIMONIALS_FILE (/x.json): not a readable JSON file' }] });
  });

  it('makes anything else an error, with the first line of its message', () => {
    expect(classifyFailure('S', new Error('boom\nstack'))).toEqual({ set: 'S', result: 'error', message: 'boom' });
    expect(classifyFailure('S', 'odd')).toEqual({ set: 'S', result: 'error', message: 'odd' });
  });
});

describe('reloadLogLine', () => {
  it('names the file, the path and the reason of a refused set, every problem in the message', () => {
    const two = new MappingSetError([...invalid.problems, { file: 'client.yaml', path: '', reason: 'not readable as YAML: bad' }]);
    const line = reloadLogLine(classifyFailure('MAPPINGS_DIR', two));
    expect(line.level).toBe('error');
    expect(line.fields).toMatchObject({ set: 'MAPPINGS_DIR', file: 'records/client.yaml', path: 'fields.4.from', reason: 'Invalid input', problems: 2 });
    expect(line.msg).toBe('MAPPINGS_DIR: mappings reload refused, the set in service stays: records/client.yaml: fields.4.from: Invalid input; client.yaml: not readable as YAML: bad');
  });

  it('says what took over, and whether it changed', () => {
    const line = reloadLogLine({ set: 'MAPPINGS_DIR', result: 'ok', previous: 'aaa', digest: 'bbb', mappings: 14 });
    expect(line).toEqual({ level: 'info', fields: { set: 'MAPPINGS_DIR', digest: 'bbb', previous: 'aaa', mappings: 14, changed: true }, msg: 'MAPPINGS_DIR: mappings reloaded' });
  });
});

describe('worstResult', () => {
  it('is ok for none or all ok, else the worst', () => {
    expect(worstResult([])).toBe('ok');
    const ok = { set: 'a', result: 'ok' as const, previous: undefined, digest: 'd' };
    expect(worstResult([ok, ok])).toBe('ok');
    expect(worstResult([ok, { set: 'b', result: 'invalid', problems: [] }])).toBe('invalid');
    expect(worstResult([{ set: 'c', result: 'error', message: 'x' }, { set: 'b', result: 'invalid', problems: [] }])).toBe('error');
  });
});

describe('createMappingReloads', () => {
  it('reloads every set in order, counts each result once, and logs one line per set', async () => {
    const { logger, lines } = recordingLogger();
    const { metrics, counted } = countingMetrics();
    const reloads = createMappingReloads({ logger, metrics, digests: { MAPPINGS_DIR: 'd0' } });
    const order: string[] = [];
    reloads.register({ name: 'MAPPINGS_DIR', reload: async () => (order.push('main'), { digest: 'd1', mappings: 3 }) });
    reloads.register({ name: 'SHADOW_MAPPINGS_DIR', reload: async () => (order.push('shadow'), Promise.reject(invalid)) });
    const result = await reloads.reload();
    expect(order).toEqual(['main', 'shadow']);
    expect(result.result).toBe('invalid');
    expect(result.sets.map((s) => [s.set, s.result])).toEqual([['MAPPINGS_DIR', 'ok'], ['SHADOW_MAPPINGS_DIR', 'invalid']]);
    expect(result.sets[0]).toMatchObject({ previous: 'd0', digest: 'd1' });
    expect(counted).toEqual(['ok', 'invalid']);
    expect(lines.map((l) => [l.level, l.fields.set])).toEqual([['info', 'MAPPINGS_DIR'], ['error', 'SHADOW_MAPPINGS_DIR']]);
  });

  it("keeps a refused set's digest as the previous one of the next reload", async () => {
    const { logger } = recordingLogger();
    const outcomes: Array<() => Promise<SetTookOver>> = [async () => ({ digest: 'd1' }), () => Promise.reject(invalid), async () => ({ digest: 'd2' })];
    const reloads = createMappingReloads({ logger, metrics: countingMetrics().metrics });
    reloads.register({ name: 'MAPPINGS_DIR', reload: () => outcomes.shift()!() });
    await reloads.reload();
    await reloads.reload();
    expect((await reloads.reload()).sets[0]).toMatchObject({ result: 'ok', previous: 'd1', digest: 'd2' });
  });

  it('runs once more after the reload in progress, however many are asked for meanwhile', async () => {
    const { logger } = recordingLogger();
    let runs = 0;
    let release: () => void = () => undefined;
    const reloads = createMappingReloads({ logger, metrics: countingMetrics().metrics });
    reloads.register({
      name: 'MAPPINGS_DIR',
      reload: async () => {
        runs += 1;
        if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
        return { digest: `d${runs}` };
      },
    });
    const first = reloads.reload();
    const second = reloads.reload();
    const third = reloads.reload();
    expect(second).toBe(third);
    release();
    expect((await first).sets[0]).toMatchObject({ digest: 'd1' });
    expect((await second).sets[0]).toMatchObject({ digest: 'd2', previous: 'd1' });
    expect(runs).toBe(2);
  });

  it('stops reloading a set once it is removed', async () => {
    const reloads = createMappingReloads({ logger: recordingLogger().logger, metrics: countingMetrics().metrics });
    const remove = reloads.register({ name: 'S', reload: async () => ({ digest: 'd' }) });
    remove();
    expect(await reloads.reload()).toEqual({ result: 'ok', sets: [] });
  });
});

describe("the mappings directory's digest", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('is the same for the same files and changes with one byte of a record file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lgw-digest-'));
    dirs.push(dir);
    cpSync(path.resolve('mappings'), dir, { recursive: true });
    const first = loadMappingDirectorySync(dir).digest;
    expect(first).toMatch(/^[0-9a-f]{12}$/);
    expect(loadMappingDirectorySync(path.resolve('mappings')).digest).toBe(first);
    writeFileSync(path.join(dir, 'records', 'testimonial.yaml'), '\n', { flag: 'a' });
    expect(loadMappingDirectorySync(dir).digest).not.toBe(first);
  });
});
