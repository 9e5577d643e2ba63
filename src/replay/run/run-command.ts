// The work of `legacy-gateway replay` (its command line is src/commands/replay.ts): the inputs read and
// checked, the target started (target.ts: a running gateway, or the gateway in-process over --upstream or
// an embedded sandbox started for the run), the wiring of reports, progress and exit code, and
// SIGINT/SIGTERM during a run (interrupts.ts: the first stops it and reports what was done, a second quits
// at once).
// Exit codes: 0 when at most --max-differences entries differ, 1 when more, 2 on a usage or input error
// (or a report that cannot be written), 130 when a signal stopped the run before every entry was replayed.
// It returns the exit code and must never call process.exit, except on a second signal, when the
// operator asked to quit at once (commander itself exits, with 2, on a malformed command line). It must
// never print a key, token or password: every line goes through the run's scrubber, every entry through
// redaction. It must never leave a partial report file behind, whatever ends the run.
// With --shadow-pairs nothing is started or sent: each line of a SHADOW_DIFF_FILE answers from itself
// (shadow-pairs.ts, target.ts shadowPairsTarget).
// With --propose-mappings it also feeds the differing entries to the mapping proposal and, once every entry
// is replayed and before the target stops, has it read v1 and write the proposed mappings
// (src/replay/propose/mapping-proposal.ts).
import path from 'node:path';
import { parseReplayOptions, ReplayUsageError, type ReplayCommandOptions } from './command-options.js';
import { readDefaultRules, readOperatorRules } from './rule-files.js';
import { MappedResourcesError, readMappedResources } from './mapped-resources.js';
import { createProgress, type ProgressDisplay } from './progress.js';
import { detectFormat, RecordingInputError, type RecordingFormat } from '../recordings/read-recording.js';
import { SecretScrubber } from '../../shared/redact.js';
import { HtmlEntrySelection } from '../report/html/entry-selection.js';
import { createJsonReportWriter, partialReportPaths, writeHtmlReport, type JsonReportWriter } from '../report/files.js';
import { combineRuleSets, EMPTY_RULE_SET, RulesFileError, type RuleSet } from '../rules/rules-file.js';
import type { ReportMeta } from '../report/json.js';
import { runReplay, type ReplayRunOptions, type ReplayRunResult, type ReplaySinks } from './runner.js';
import { listenForInterrupts, type InterruptIo, type Interrupts } from './interrupts.js';
import { runningGatewayTarget, shadowPairsTarget, type ReplayTarget } from './target.js';
import type { ReplayGateway } from './gateway-port.js';
import { INTERRUPTED_EXIT_CODE, verdictOf } from '../report/verdict.js';
import type { MappedResources } from './write-effects.js';
import type { MappingProposal } from '../propose/mapping-proposal.js';
import type { ProposalOutcome } from '../propose/proposal.js';
import { proposalSummaryText } from '../propose/proposal-report.js';

export { INTERRUPTED_EXIT_CODE } from '../report/verdict.js';
export type { InterruptSignal, SignalSource } from './interrupts.js';

/** Where the command writes, its environment, and (InterruptIo) where signals come from and how it quits. */
export interface CommandIo extends InterruptIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
}

/**
 * What the command needs before it starts anything: its options, rules (the default set, then the
 * operator's file), the recording's format, and the mappings the target serves.
 */
interface CommandInputs {
  options: ReplayCommandOptions;
  rules: RuleSet;
  format: RecordingFormat;
  resources: MappedResources;
  /** With --propose-mappings: the mappings read and the destination checked. */
  proposal: MappingProposal | undefined;
}

/** Loaded only when asked for. Throws ReplayUsageError for unusable mappings or destination. */
async function prepareProposal(outDir: string | undefined, env: NodeJS.ProcessEnv, gateway: ReplayGateway): Promise<MappingProposal | undefined> {
  if (outDir === undefined) return undefined;
  const { prepareMappingProposal, ProposalSetupError } = await import('../propose/mapping-proposal.js');
  try {
    return await prepareMappingProposal(outDir, env, gateway);
  } catch (err) {
    if (err instanceof ProposalSetupError) throw new ReplayUsageError(err.message);
    throw err;
  }
}

/** Throws ReplayUsageError, RulesFileError, RecordingInputError or MappedResourcesError (exit code 2). */
async function readCommandInputs(file: string, raw: Record<string, unknown>, env: NodeJS.ProcessEnv, gateway: ReplayGateway): Promise<CommandInputs> {
  const options = parseReplayOptions(raw);
  let rules: RuleSet = options.rules === undefined ? EMPTY_RULE_SET : await readOperatorRules(options.rules);
  if (options.defaultRules) rules = combineRuleSets(await readDefaultRules(), rules);
  const format = options.format ?? (await detectFormat(file));
  // The proposal's check of the mappings first: it names the option that asked for them.
  const proposal = await prepareProposal(options.proposeMappings, env, gateway);
  return { options, rules, format, resources: await readMappedResources(env, gateway), proposal };
}

/** One run of the command, once its inputs are read and its target is up. */
interface CommandRun extends CommandInputs {
  file: string;
  target: ReplayTarget;
  apiKey: string | undefined;
  io: CommandIo;
  interrupts: Interrupts;
  progress: ProgressDisplay;
  /** Writes the message (scrubbed) and returns exit code 2. */
  fail(message: string): number;
}

/** Where the entries go: the JSON report (streamed to disk) and the HTML report's selection. */
interface ReportSinks {
  json: JsonReportWriter | undefined;
  html: HtmlEntrySelection | undefined;
}

function announce(run: CommandRun): void {
  run.io.stderr.write(
    `replay: ${path.basename(run.file)} (${run.format.toUpperCase()}) against ${run.target.label}` +
      `${run.options.includeWrites ? ', writes included' : ''}\n`,
  );
  if (run.apiKey === undefined && !run.options.shadowPairs) {
    run.io.stderr.write(
      'warning: no --api-key (or UPSTREAM_API_KEY): recorded keys are removed and no key is sent; the gateway uses its own UPSTREAM_API_KEY\n',
    );
  }
}

function runnerOptions(run: CommandRun): ReplayRunOptions {
  const { options } = run;
  return {
    file: run.file,
    format: run.format,
    targetUrl: run.target.url,
    apiKey: run.apiKey,
    safety: {
      includeWrites: options.includeWrites,
      allowProductionWrites: options.allowProductionWrites,
      targetIsSandboxOrLoopback: run.target.sandboxOrLoopback,
      allPaths: options.allPaths,
      compareKeyRefusals: options.compareKeyRefusals,
    },
    rules: run.rules,
    checkOrder: options.checkOrder,
    checkKeyOrder: options.checkKeyOrder,
    resources: run.resources,
    concurrency: options.concurrency,
    ratePerSecond: options.rate,
    timeoutMs: options.timeout,
    hourlyBudget: options.budget,
    signal: run.interrupts.signal,
    shadowPairs: options.shadowPairs,
  };
}

function runnerSinks(run: CommandRun, reports: ReportSinks): ReplaySinks {
  const { proposal } = run;
  return {
    warning: (line) => run.io.stderr.write(`${line}\n`),
    progress: (state) => run.progress.update(state),
    entry: async (entry) => {
      reports.html?.add(entry);
      await reports.json?.add(entry);
    },
    ...(proposal ? { difference: (entry, recordedJson) => proposal.collector.add(entry, recordedJson) } : {}),
  };
}

/** A replay that ran to its end (or was interrupted), and what the mapping proposal made of it. */
interface ReplayDone {
  result: ReplayRunResult;
  /** With --propose-mappings: undefined when the run was interrupted (nothing proposed or written). */
  proposal: ProposalOutcome | undefined;
}

/** After a complete replay, with the target still up: the mapping proposal, read and written. */
async function finishProposal(run: CommandRun, result: ReplayRunResult): Promise<ProposalOutcome | undefined> {
  if (run.proposal === undefined || result.interrupted) return undefined;
  const { finishMappingProposal } = await import('../propose/mapping-proposal.js');
  run.io.stderr.write(`mapping proposal: reading the v1 records behind ${run.proposal.collector.entryCount} differing entries\n`);
  try {
    return await finishMappingProposal(run.proposal, {
      v1BaseUrl: run.target.v1Url,
      apiKey: run.apiKey,
      timeoutMs: run.options.timeout,
      concurrency: run.options.concurrency,
      signal: run.interrupts.signal,
      scrubber: result.scrubber,
      warn: (line) => run.io.stderr.write(`${line}\n`),
    });
  } catch (err) {
    throw new Error(`cannot write the proposed mappings: ${(err as Error).message}`, { cause: err });
  }
}

/** Replays the recording into the reports; the result, or the exit code when the run ended without one. */
async function replayIntoReports(run: CommandRun, reports: ReportSinks): Promise<ReplayDone | number> {
  try {
    announce(run);
    if (run.options.json !== undefined) reports.json = await createJsonReportWriter(run.options.json);
    const result = await runReplay(runnerOptions(run), runnerSinks(run, reports));
    return { result, proposal: await finishProposal(run, result) };
  } catch (err) {
    await reports.json?.abort();
    if (run.interrupts.quit) return INTERRUPTED_EXIT_CODE;
    if (err instanceof RecordingInputError) return run.fail(err.message);
    const message = (err as Error).message;
    return run.fail(message.startsWith('cannot write the proposed mappings') ? message : `replay failed: ${message}`);
  } finally {
    await run.target.close();
  }
}

/** Writes the JSON and HTML reports; undefined when written, else the exit code. */
async function writeReports(run: CommandRun, reports: ReportSinks, done: ReplayDone): Promise<number | undefined> {
  const { result } = done;
  const { summary, interrupted, entriesInFile } = result;
  const meta: ReportMeta = { file: run.file, target: run.target.label, rules: result.rules, interrupted, entriesInFile };
  if (run.proposal !== undefined) {
    meta.proposals = done.proposal?.proposals ?? [];
    meta.unexplained = done.proposal?.unexplained ?? [];
  }
  try {
    if (reports.json !== undefined) await reports.json.finish(summary, meta);
    if (reports.html !== undefined && run.options.html !== undefined) {
      await writeHtmlReport(run.options.html, summary, meta, reports.html, { maxDifferences: run.options.maxDifferences, curlBase: run.target.curlBase });
    }
  } catch (err) {
    await reports.json?.abort();
    if (run.interrupts.quit) return INTERRUPTED_EXIT_CODE;
    return run.fail(result.scrubber.scrub(`cannot write the reports: ${(err as Error).message}`));
  }
  return undefined;
}

/** The replay, its reports and what is printed at the end; returns the exit code. */
async function replayAndReport(run: CommandRun): Promise<number> {
  const reports: ReportSinks = { json: undefined, html: run.options.html !== undefined ? new HtmlEntrySelection() : undefined };
  const done = await replayIntoReports(run, reports);
  if (typeof done === 'number') return done;
  const { result } = done;
  run.interrupts.replayOver();
  if (run.interrupts.quit) {
    await reports.json?.abort();
    return INTERRUPTED_EXIT_CODE;
  }
  const { summary, scrubber, interrupted, entriesInFile } = result;
  run.progress.finish({ ...summary, done: summary.total, total: interrupted ? (entriesInFile ?? summary.total) : summary.total });
  const notWritten = await writeReports(run, reports, done);
  if (notWritten !== undefined) return notWritten;
  if (run.interrupts.quit) return INTERRUPTED_EXIT_CODE;
  const verdict = verdictOf(result, run.options.maxDifferences, { json: run.options.json, html: run.options.html });
  run.io.stdout.write(scrubber.scrub(verdict.table));
  if (run.proposal !== undefined) {
    run.io.stdout.write(
      scrubber.scrub(
        done.proposal === undefined
          ? '\nmapping proposal: not made, the run was interrupted (nothing written)\n'
          : proposalSummaryText(done.proposal, run.proposal.source.outDir),
      ),
    );
  }
  if (verdict.warnings !== '') run.io.stderr.write(scrubber.scrub(verdict.warnings));
  run.io.stdout.write(verdict.closing);
  return verdict.exitCode;
}

/** Runs the command; returns the exit code. Never throws for a usage or input error (those are 2). */
export async function runReplayCommand(file: string, raw: Record<string, unknown>, io: CommandIo, gateway: ReplayGateway): Promise<number> {
  // Known before anything else, so even an early error message cannot echo the key.
  const envKey = io.env.UPSTREAM_API_KEY?.trim() ? io.env.UPSTREAM_API_KEY : undefined;
  if (raw.apiKey === undefined && envKey !== undefined) raw = { ...raw, apiKey: envKey };
  const early = new SecretScrubber();
  if (typeof raw.apiKey === 'string') early.add(raw.apiKey);
  const fail = (message: string): number => {
    io.stderr.write(`legacy-gateway replay: ${early.scrub(message)}\n`);
    return 2;
  };

  let inputs: CommandInputs;
  try {
    inputs = await readCommandInputs(file, raw, io.env, gateway);
  } catch (err) {
    const inputError = err instanceof ReplayUsageError || err instanceof RulesFileError || err instanceof RecordingInputError || err instanceof MappedResourcesError;
    if (inputError) return fail(err.message);
    throw err;
  }
  const { options } = inputs;
  let target: ReplayTarget;
  try {
    if (options.shadowPairs) target = shadowPairsTarget();
    else target = options.target !== undefined ? runningGatewayTarget(options.target) : await gateway.startInProcess(options, io.env);
  } catch (err) {
    return fail(`cannot start the in-process gateway: ${(err as Error).message}`);
  }

  const progress = createProgress(io.stderr);
  const partialFiles = partialReportPaths({ json: options.json, html: options.html });
  if (inputs.proposal !== undefined) partialFiles.push(inputs.proposal.partialDir);
  const interrupts = listenForInterrupts(io, partialFiles);
  try {
    return await replayAndReport({ ...inputs, file, target, apiKey: options.apiKey ?? target.defaultKey, io, interrupts, progress, fail });
  } finally {
    interrupts.dispose();
  }
}
