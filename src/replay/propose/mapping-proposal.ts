// `replay --propose-mappings <dir>` from start to end: set up before the replay (the mappings read, <dir>
// checked), fed during it (the runner's `difference` sink), and finished after it while the target is still
// up: the v1 records behind the differing calls are read, each field decided, and the copy written.
// It must never print, report or write the v1 key: the key goes only into the X-API-KEY header of the v1
// reads, every message goes through the run's scrubber, and no recorded value that the scrubber would change
// is ever proposed.
import type { SecretScrubber } from '../../shared/redact.js';
import type { ReplayGateway } from '../run/gateway-port.js';
import type { FieldVerdict } from './decision-rule.js';
import { EvidenceCollector, type GatheredVerdicts } from './evidence-collector.js';
import { partialDirOf, prepareProposalSource, writeProposedMappings, type ProposalSource } from './mapping-copy.js';
import type { Proposal, ProposalOutcome, Unexplained } from './proposal.js';
import { createV1Reader } from './v1-reader.js';
import { applyProposals, type ProposalToApply } from './yaml-edits.js';

export { ProposalSetupError } from './mapping-copy.js';

export interface MappingProposal {
  readonly source: ProposalSource;
  readonly collector: EvidenceCollector;
  /** The folder the copy is assembled in (removed when the run quits at once). */
  readonly partialDir: string;
  /** Where v1 is read with the gateway's own client. */
  readonly v1Reads: ReplayGateway['v1Reads'];
}

/** Before the replay: throws ProposalSetupError (exit code 2) for unusable mappings or destination. */
export async function prepareMappingProposal(outDir: string, env: NodeJS.ProcessEnv, gateway: ReplayGateway): Promise<MappingProposal> {
  const source = await prepareProposalSource(outDir, env, gateway);
  return { source, collector: new EvidenceCollector(source.mappings, source.viewOrder), partialDir: partialDirOf(source.outDir), v1Reads: gateway.v1Reads };
}

export interface ProposalFinish {
  /** Where `/api/v1/...` is read: v1 itself, or the running gateway whose passthrough reaches it. */
  v1BaseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  concurrency: number;
  signal: AbortSignal;
  scrubber: SecretScrubber;
  /** A line for stderr. */
  warn(line: string): void;
}

/** A default that the scrubber would change is a secret of the run: never written into a mapping. */
function withoutSecrets(verdicts: FieldVerdict[], scrubber: SecretScrubber): FieldVerdict[] {
  return verdicts.map((v) => {
    if (v.kind !== 'proposal' || v.proposal.edit.kind !== 'default') return v;
    if (scrubber.scrub(v.proposal.edit.value) === v.proposal.edit.value) return v;
    const { record, legacyField, methods } = v.proposal;
    return { kind: 'unexplained', unexplained: { record, legacyField, methods, values: [], reason: 'the one recorded value is a secret of this run' } };
  });
}

function outcomeOf(verdicts: readonly FieldVerdict[]): { outcome: ProposalOutcome; toApply: ProposalToApply[] } {
  const byRecord = (a: { record: string }, b: { record: string }): number => a.record.localeCompare(b.record);
  const toApply: ProposalToApply[] = [];
  const unexplained: Unexplained[] = [];
  for (const v of verdicts) {
    if (v.kind === 'proposal') toApply.push({ proposal: v.proposal, retiredV1Field: v.retiredV1Field });
    else if (v.kind === 'unexplained') unexplained.push(v.unexplained);
  }
  toApply.sort((a, b) => byRecord(a.proposal, b.proposal));
  const proposals: Proposal[] = toApply.map((t) => t.proposal);
  return { outcome: { proposals, unexplained: unexplained.sort(byRecord) }, toApply };
}

/**
 * After a complete replay, with the target still up: reads v1, decides, writes the copy. Undefined when the
 * signal stopped the reading (nothing is written). Throws when the copy cannot be written.
 */
export async function finishMappingProposal(proposal: MappingProposal, finish: ProposalFinish): Promise<ProposalOutcome | undefined> {
  const reader = createV1Reader(proposal.v1Reads(finish.v1BaseUrl, finish.timeoutMs), finish.apiKey);
  let gathered: GatheredVerdicts;
  try {
    gathered = await proposal.collector.verdicts({ v1Get: reader.get, concurrency: finish.concurrency, signal: finish.signal });
  } finally {
    await reader.close();
  }
  if (gathered.stopped) return undefined;
  if (gathered.callsFailed > 0) {
    finish.warn(
      finish.scrubber.scrub(
        `warning: mapping proposal: the v1 records behind ${gathered.callsFailed} of ${gathered.callsRead} calls could not be read (first: ${gathered.firstFailure ?? 'unknown'}); their records are not counted`,
      ),
    );
  }
  const { outcome, toApply } = outcomeOf(withoutSecrets(gathered.verdicts, finish.scrubber));
  await writeProposedMappings(proposal.source, applyProposals(proposal.source.files, toApply));
  return outcome;
}
