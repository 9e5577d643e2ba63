// The runner's options as the replay tests use them: a loopback target, a replay key, no rules; each test
// overrides what it is about.
import { EMPTY_RULE_SET } from '../../src/replay/rules/rules-file.js';
import type { ReplayRunOptions } from '../../src/replay/run/runner.js';

export function replayRunOptions(file: string, targetUrl: string, o: Partial<ReplayRunOptions> = {}): ReplayRunOptions {
  return {
    file,
    targetUrl,
    apiKey: 'replay-key-0001',
    safety: { includeWrites: false, allowProductionWrites: false, targetIsSandboxOrLoopback: true, allPaths: false },
    rules: EMPTY_RULE_SET,
    checkOrder: true,
    concurrency: 4,
    ratePerSecond: undefined,
    timeoutMs: 5000,
    hourlyBudget: 1000,
    ...o,
  };
}
