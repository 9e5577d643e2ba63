// The work of `legacy-gateway replay` (its command line is src/replay/command-line.ts): option
// validation (zod), the in-process gateway when no --target is given, and the wiring of reports, progress
// and exit code, and SIGINT/SIGTERM during a run (the first stops it and reports what was done, a second
// quits at once).
// Exit codes: 0 when at most --max-differences entries differ, 1 when more, 2 on a usage or input error
// (or a report that cannot be written), 130 when a signal stopped the run before every entry was replayed.
// It returns the exit code and must never call process.exit, except on a second signal, when the
// operator asked to quit at once (commander itself exits, with 2, on a malformed command line). It must
// never print a key, token or password: every line goes through the run's scrubber, every entry through
// redaction. It must never leave a partial report file behind, whatever ends the run.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_HOURLY_BUDGET } from './budget.js';
import { createProgress } from './progress.js';
import { detectFormat, RecordingInputError, type RecordingFormat } from './read-recording.js';
import { redactUrl, SecretScrubber } from '../shared/redact.js';
import {
  createJsonReportWriter,
  HtmlEntrySelection,
  partialReportPaths,
  removeFilesNow,
  writeHtmlReport,
  type JsonReportWriter,
} from './report-files.js';
import type { ReportMeta } from './report-json.js';
import { EMPTY_RULE_SET, parseRules, RulesFileError, type RuleSet } from './rules.js';
import { runReplay, type ReplayRunResult } from './runner.js';
import { isLoopbackUrl } from './safety.js';
import { renderSummaryTable } from './summary.js';

/** A malformed command line or option value: exit code 2. */
export class ReplayUsageError extends Error {
  override name = 'ReplayUsageError';
}

const httpUrl = z
  .string()
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http:// or https:// URL');

const wholeNumber = (min: number, max: number): z.ZodType<number, string> =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const optionsSchema = z
  .object({
    target: httpUrl.optional(),
    upstream: httpUrl.optional(),
    apiKey: z.string().min(1, 'must not be empty').optional(),
    json: z.string().min(1).optional(),
    html: z.string().min(1).optional(),
    maxDifferences: wholeNumber(0, Number.MAX_SAFE_INTEGER).default(0),
    checkOrder: z.boolean().default(true),
    rules: z.string().min(1).optional(),
    concurrency: wholeNumber(1, 256).default(8),
    rate: z
      .string()
      .regex(/^\d+(\.\d+)?(\/s)?$/, 'must be calls per second, e.g. 10/s or 0.5/s')
      .transform((v) => Number(v.replace(/\/s$/, '')))
      .pipe(z.number().positive('must be above 0'))
      .optional(),
    budget: wholeNumber(1, Number.MAX_SAFE_INTEGER).default(DEFAULT_HOURLY_BUDGET),
    timeout: wholeNumber(1, 3_600_000).default(30_000),
    format: z.enum(['har', 'jsonl']).optional(),
    includeWrites: z.boolean().default(false),
    allowProductionWrites: z.boolean().default(false),
    allPaths: z.boolean().default(false),
  })
  .refine((o) => !(o.target && o.upstream), {
    message: '--upstream configures the in-process gateway; it cannot be combined with --target',
    path: ['upstream'],
  })
  .refine((o) => !o.allowProductionWrites || o.includeWrites, {
    message: '--allow-production-writes only applies together with --include-writes',
    path: ['allowProductionWrites'],
  });

export type ReplayCommandOptions = z.infer<typeof optionsSchema>;

const OPTION_FLAGS: Readonly<Record<string, string>> = {
  target: '--target',
  upstream: '--upstream',
  apiKey: '--api-key',
  json: '--json',
  html: '--html',
  maxDifferences: '--max-differences',
  rules: '--rules',
  concurrency: '--concurrency',
  rate: '--rate',
  budget: '--budget',
  timeout: '--timeout',
  format: '--format',
  allowProductionWrites: '--allow-production-writes',
};

/** Validates commander's raw option values; throws ReplayUsageError naming each bad option. */
export function parseReplayOptions(raw: Record<string, unknown>): ReplayCommandOptions {
  const parsed = optionsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => {
    const key = String(i.path[0] ?? '');
    return `${OPTION_FLAGS[key] ?? key}: ${i.message}`;
  });
  throw new ReplayUsageError(lines.join('\n'));
}

export type InterruptSignal = 'SIGINT' | 'SIGTERM';
const INTERRUPT_SIGNALS: readonly InterruptSignal[] = ['SIGINT', 'SIGTERM'];

/** Where the interrupt signals come from: `process`, or an event emitter in tests. */
export interface SignalSource {
  on(signal: InterruptSignal, listener: () => void): unknown;
  off(signal: InterruptSignal, listener: () => void): unknown;
}

/** An interrupted run's exit code: 128 + SIGINT's number, what shells report for Ctrl-C. */
export const INTERRUPTED_EXIT_CODE = 130;

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  /** SIGINT and SIGTERM during the run (default: process). */
  signals?: SignalSource;
  /**
   * Ends the process on a second signal (default: process.exit). One that returns (a test's) makes the
   * command return that code without writing anything more.
   */
  exit?: (code: number) => void;
}

function exitAtOnce(code: number): never {
  // The command's only exit: the operator asked twice to stop, and waits for nothing more.
  process.exitCode = code;
  process.exit(code);
}

interface Interrupts {
  /** Aborted by the first signal. */
  readonly signal: AbortSignal;
  /** A second signal came: the partial report files are gone and nothing more may be written. */
  readonly quit: boolean;
  /** The replay is over (reports are being written): a first signal no longer has calls to wait for. */
  replayOver(): void;
  /** Removes the listeners. */
  dispose(): void;
}

/** The first signal stops the run gracefully; a second removes the partial report files and exits. */
function listenForInterrupts(io: CommandIo, partialFiles: readonly string[]): Interrupts {
  const source: SignalSource = io.signals ?? process;
  const exit = io.exit ?? exitAtOnce;
  const controller = new AbortController();
  // On a terminal the progress bar holds the current line.
  const lineStart = io.stderr.isTTY === true ? '\n' : '';
  let replayOver = false;
  let quit = false;
  const onSignal = (): void => {
    if (!controller.signal.aborted) {
      controller.abort();
      io.stderr.write(
        replayOver
          ? `${lineStart}interrupted: writing the reports (press Ctrl-C again to quit at once)\n`
          : `${lineStart}interrupted: finishing the calls in flight, then writing the reports of the entries done (press Ctrl-C again to quit at once)\n`,
      );
      return;
    }
    if (quit) return;
    quit = true;
    removeFilesNow(partialFiles);
    io.stderr.write(`${lineStart}interrupted again: partial report files removed, quitting (exit ${INTERRUPTED_EXIT_CODE})\n`);
    exit(INTERRUPTED_EXIT_CODE);
  };
  for (const name of INTERRUPT_SIGNALS) source.on(name, onSignal);
  return {
    signal: controller.signal,
    get quit() {
      return quit;
    },
    replayOver() {
      replayOver = true;
    },
    dispose() {
      for (const name of INTERRUPT_SIGNALS) source.off(name, onSignal);
    },
  };
}

interface Target {
  url: string;
  /** What the report calls it. */
  label: string;
  sandboxOrLoopback: boolean;
  /** Key used when none is given (the sandbox's demo key). */
  defaultKey: string | undefined;
  close(): Promise<void>;
}

async function startInProcessGateway(
  upstream: string | undefined,
  apiKey: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Target> {
  const [{ startGateway }, { loadConfig }, { SANDBOX_KEYS }, { createLogger }, { pino }] = await Promise.all([
    import('../gateway/start.js'),
    import('../gateway/config.js'),
    import('../sandbox/index.js'),
    import('../gateway/logging.js'),
    import('pino'),
  ]);
  const key = apiKey ?? (upstream === undefined ? SANDBOX_KEYS.primary : undefined);
  // The operator's settings apply (mappings, time zone, cache), except where the replay decides: its
  // own upstream, a loopback ephemeral port, no recording of the replay itself, no metrics port.
  const gatewayEnv: NodeJS.ProcessEnv = {
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: env.LOG_LEVEL ?? 'fatal',
  };
  delete gatewayEnv.UPSTREAM_URL;
  delete gatewayEnv.RECORD_FILE;
  delete gatewayEnv.METRICS_PORT;
  delete gatewayEnv.UPSTREAM_API_KEY;
  if (upstream !== undefined) gatewayEnv.UPSTREAM_URL = upstream;
  if (key !== undefined) gatewayEnv.UPSTREAM_API_KEY = key;
  const config = loadConfig(gatewayEnv);
  // Gateway log lines go to stderr: stdout carries the replay's summary only.
  const logger = createLogger(config.logLevel, pino.destination({ dest: 2, sync: true }));
  const gateway = await startGateway({ config, logger });
  return {
    url: gateway.url,
    label: upstream === undefined ? 'in-process gateway + embedded sandbox' : `in-process gateway -> ${redactUrl(upstream)}`,
    sandboxOrLoopback: upstream === undefined || isLoopbackUrl(upstream),
    defaultKey: key,
    close: () => gateway.close(),
  };
}

/** Runs the command; returns the exit code. Never throws for a usage or input error (those are 2). */
export async function runReplayCommand(file: string, raw: Record<string, unknown>, io: CommandIo): Promise<number> {
  // Known before anything else, so even an early error message cannot echo the key.
  const envKey = io.env.UPSTREAM_API_KEY?.trim() ? io.env.UPSTREAM_API_KEY : undefined;
  if (raw.apiKey === undefined && envKey !== undefined) raw = { ...raw, apiKey: envKey };
  const early = new SecretScrubber();
  if (typeof raw.apiKey === 'string') early.add(raw.apiKey);
  const fail = (message: string): number => {
    io.stderr.write(`legacy-gateway replay: ${early.scrub(message)}\n`);
    return 2;
  };

  let options: ReplayCommandOptions;
  let rules: RuleSet = EMPTY_RULE_SET;
  let format: RecordingFormat;
  try {
    options = parseReplayOptions(raw);
    if (options.rules !== undefined) {
      let text: string;
      try {
        text = await readFile(options.rules, 'utf8');
      } catch (err) {
        throw new ReplayUsageError(`${options.rules}: cannot read the rules file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      rules = parseRules(text, options.rules);
    }
    format = options.format ?? (await detectFormat(file));
  } catch (err) {
    if (err instanceof ReplayUsageError || err instanceof RulesFileError || err instanceof RecordingInputError) {
      return fail(err.message);
    }
    throw err;
  }

  let target: Target;
  if (options.target !== undefined) {
    target = {
      url: options.target,
      label: redactUrl(options.target),
      sandboxOrLoopback: isLoopbackUrl(options.target),
      defaultKey: undefined,
      close: async () => undefined,
    };
  } else {
    try {
      target = await startInProcessGateway(options.upstream, options.apiKey, io.env);
    } catch (err) {
      return fail(`cannot start the in-process gateway: ${(err as Error).message}`);
    }
  }

  const apiKey = options.apiKey ?? target.defaultKey;
  let jsonWriter: JsonReportWriter | undefined;
  const htmlSelection = options.html !== undefined ? new HtmlEntrySelection() : undefined;
  const progress = createProgress(io.stderr);
  const interrupts = listenForInterrupts(io, partialReportPaths({ json: options.json, html: options.html }));
  try {
    let result: ReplayRunResult;
    try {
      io.stderr.write(
        `replay: ${path.basename(file)} (${format.toUpperCase()}) against ${target.label}` +
          `${options.includeWrites ? ', writes included' : ''}\n`,
      );
      if (apiKey === undefined) {
        io.stderr.write(
          'warning: no --api-key (or UPSTREAM_API_KEY): recorded keys are removed and no key is sent; the gateway uses its own UPSTREAM_API_KEY\n',
        );
      }
      if (options.json !== undefined) jsonWriter = await createJsonReportWriter(options.json);
      result = await runReplay(
        {
          file,
          format,
          targetUrl: target.url,
          apiKey,
          safety: {
            includeWrites: options.includeWrites,
            allowProductionWrites: options.allowProductionWrites,
            targetIsSandboxOrLoopback: target.sandboxOrLoopback,
            allPaths: options.allPaths,
          },
          rules,
          checkOrder: options.checkOrder,
          concurrency: options.concurrency,
          ratePerSecond: options.rate,
          timeoutMs: options.timeout,
          hourlyBudget: options.budget,
          signal: interrupts.signal,
        },
        {
          warning: (line) => io.stderr.write(`${line}\n`),
          progress: (state) => progress.update(state),
          entry: async (entry) => {
            htmlSelection?.add(entry);
            await jsonWriter?.add(entry);
          },
        },
      );
    } catch (err) {
      await jsonWriter?.abort();
      if (interrupts.quit) return INTERRUPTED_EXIT_CODE;
      if (err instanceof RecordingInputError) return fail(err.message);
      return fail(`replay failed: ${(err as Error).message}`);
    } finally {
      await target.close();
    }
    interrupts.replayOver();
    if (interrupts.quit) {
      await jsonWriter?.abort();
      return INTERRUPTED_EXIT_CODE;
    }

    const { summary, scrubber, interrupted, entriesInFile } = result;
    progress.finish({ ...summary, done: summary.total, total: interrupted ? (entriesInFile ?? summary.total) : summary.total });
    const meta: ReportMeta = { file, target: target.label, rules: result.rules, interrupted, entriesInFile };
    try {
      if (jsonWriter !== undefined) await jsonWriter.finish(summary, meta);
      if (htmlSelection !== undefined && options.html !== undefined) await writeHtmlReport(options.html, summary, meta, htmlSelection);
    } catch (err) {
      await jsonWriter?.abort();
      if (interrupts.quit) return INTERRUPTED_EXIT_CODE;
      return fail(scrubber.scrub(`cannot write the reports: ${(err as Error).message}`));
    }
    if (interrupts.quit) return INTERRUPTED_EXIT_CODE;

    io.stdout.write(scrubber.scrub(renderSummaryTable(summary)));
    let code: number;
    if (interrupted) {
      // No verdict and no unused-rule warnings: the entries not replayed might have changed either.
      io.stdout.write(
        entriesInFile !== undefined
          ? `interrupted after ${summary.total} of ${entriesInFile} entries: the reports cover those ${summary.total}\n`
          : 'interrupted while the recording was still being checked, before any call: the reports cover no entries\n',
      );
      code = INTERRUPTED_EXIT_CODE;
    } else {
      for (const r of result.rules.filter((u) => u.matchedEntries === 0)) {
        io.stderr.write(scrubber.scrub(`warning: rule ${r.rule} matched nothing: remove or fix it\n`));
      }
      const failing = summary.different + summary.errors;
      code = failing > options.maxDifferences ? 1 : 0;
      io.stdout.write(
        `${failing} of ${summary.total} entries differ or failed (allowed: ${options.maxDifferences}): exit ${code}\n`,
      );
    }
    if (options.json !== undefined) io.stdout.write(`JSON report: ${options.json}\n`);
    if (options.html !== undefined) io.stdout.write(`HTML report: ${options.html}\n`);
    return code;
  } finally {
    interrupts.dispose();
  }
}
