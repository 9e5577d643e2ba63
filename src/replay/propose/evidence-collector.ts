// Gathers the evidence of a whole run for the mapping proposal: during the replay it keeps, from each
// `different` entry, what entry-evidence.ts reads (a few values per record, never the whole reply); after it,
// it asks v1 for the records behind each distinct legacy call once, pairs them with the recorded records,
// and hands every legacy field that differed to the decision rule.
// Pure: v1 is reached through the injected V1Get port only.
import type { MappingSet } from '../../mapping/mapping-set.js';
import { compileMapping, type CompiledMapping } from '../../mapping/run.js';
import type { V1Get } from '../../mapping/v1-reply.js';
import type { JsonValue } from '../../shared/json-exact.js';
import type { ReportEntry } from '../report/entry.js';
import { pairRecords, v1RecordsBehind, type CallRecords } from './call-records.js';
import { decideField, type FieldEvidence, type FieldVerdict } from './decision-rule.js';
import { entryEvidence, type EntryEvidence } from './entry-evidence.js';
import { MAX_SEEN_VALUES } from './proposal.js';
import { legacyValueOf } from './value-search.js';

export interface EvidenceReading {
  v1Get: V1Get;
  /** Calls whose records are read at once. */
  concurrency: number;
  /** Aborted: no further call is read. */
  signal?: AbortSignal | undefined;
}

export interface GatheredVerdicts {
  verdicts: FieldVerdict[];
  /** Distinct legacy calls whose v1 records were read. */
  callsRead: number;
  /** Calls whose v1 records could not be read, and the first reason. */
  callsFailed: number;
  firstFailure: string | undefined;
  /** The signal stopped the reading: the verdicts must not be used. */
  stopped: boolean;
}

const callKey = (e: EntryEvidence): string => JSON.stringify([e.method, e.call.segments, e.call.query]);

export class EvidenceCollector {
  private readonly entries: EntryEvidence[] = [];
  private readonly compiled = new Map<string, CompiledMapping>();

  /**
   * @param mappings the mappings the replayed gateway used
   * @param viewOrder each record's views in the order its file declares them (the order of `methods`)
   */
  constructor(
    private readonly mappings: MappingSet,
    private readonly viewOrder: ReadonlyMap<string, readonly string[]>,
  ) {}

  /** The runner's `difference` sink. */
  add(entry: ReportEntry, recordedJson: JsonValue): void {
    const evidence = entryEvidence(entry, recordedJson, this.mappings);
    if (evidence) this.entries.push(evidence);
  }

  get entryCount(): number {
    return this.entries.length;
  }

  private compiledFor(method: string): CompiledMapping {
    let compiled = this.compiled.get(method);
    if (!compiled) {
      compiled = compileMapping(this.mappings.get(method)!);
      this.compiled.set(method, compiled);
    }
    return compiled;
  }

  /** Reads the v1 records behind each distinct call, `concurrency` at a time. */
  private async readCalls(reading: EvidenceReading): Promise<Map<string, CallRecords>> {
    const byCall = new Map<string, EntryEvidence>();
    for (const e of this.entries) if (!byCall.has(callKey(e))) byCall.set(callKey(e), e);
    const queue = [...byCall.entries()];
    const read = new Map<string, CallRecords>();
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        if (reading.signal?.aborted === true) return;
        const [key, e] = next;
        read.set(key, await v1RecordsBehind(this.compiledFor(e.method), e.call, reading.v1Get));
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(reading.concurrency, queue.length)) }, worker));
    return read;
  }

  /** Which methods' replies carry the field, in the order of their views in the record file. */
  private methodsCarrying(record: string, field: string): string[] {
    const views = this.viewOrder.get(record) ?? [];
    const rank = (view: string): number => (views.includes(view) ? views.indexOf(view) : views.length);
    return [...this.mappings.values()]
      .filter((m) => m.record.name === record && m.record.fields.some((f) => f.name === field))
      .sort((a, b) => rank(a.record.view) - rank(b.record.view) || a.method.localeCompare(b.method))
      .map((m) => m.method);
  }

  private fieldEvidence(groups: Map<string, FieldEvidence>, e: EntryEvidence, field: string, outsideView: boolean): FieldEvidence {
    const mapping = this.mappings.get(e.method)!;
    const record = mapping.record.name;
    const key = JSON.stringify([record, field, outsideView]);
    let group = groups.get(key);
    if (!group) {
      const spec = mapping.record.fields.find((f) => f.name === field) ?? { name: field };
      const methods = outsideView ? [e.method] : this.methodsCarrying(record, field);
      group = { record, legacyField: field, spec, nulls: mapping.record.nulls, observations: [], unpaired: 0, seen: [], methods, outsideView };
      groups.set(key, group);
    }
    if (outsideView && !group.methods.includes(e.method)) group.methods.push(e.method);
    return group;
  }

  /** The entry's differences of the field at the given record positions (all of them when undefined). */
  private static keepSeen(group: FieldEvidence, e: EntryEvidence, field: string, positions: ReadonlySet<number> | undefined): void {
    for (const { field: of, position, ...value } of e.seen) {
      if (of !== field || (positions !== undefined && !positions.has(position))) continue;
      if (group.seen.length < MAX_SEEN_VALUES) group.seen.push(value);
    }
  }

  private group(read: ReadonlyMap<string, CallRecords>): FieldEvidence[] {
    const groups = new Map<string, FieldEvidence>();
    for (const e of this.entries) {
      const compiled = this.compiledFor(e.method);
      const pairs = pairRecords(compiled, e.records, read.get(callKey(e))?.records ?? []);
      for (const field of e.fields) {
        const group = this.fieldEvidence(groups, e, field, false);
        // The records the mapping as it is gets wrong: a difference on any other one (a listing in another
        // order compares other records at that position) says nothing about this field's source.
        const wrong = new Set<number>();
        e.records.forEach((r, i) => {
          const recorded = r.values.get(field);
          if (recorded === undefined) return;
          const v1 = pairs[i];
          if (v1 === undefined) group.unpaired++;
          else group.observations.push({ entry: e.index, recorded, v1 });
          if (v1 === undefined || legacyValueOf(group.spec, v1, group.nulls) !== recorded) wrong.add(i);
        });
        EvidenceCollector.keepSeen(group, e, field, wrong);
      }
      for (const field of e.outsideView) EvidenceCollector.keepSeen(this.fieldEvidence(groups, e, field, true), e, field, undefined);
    }
    return [...groups.values()];
  }

  /** Reads v1 and decides every field that differed. */
  async verdicts(reading: EvidenceReading): Promise<GatheredVerdicts> {
    const read = await this.readCalls(reading);
    const failed = [...read.values()].filter((r) => r.error !== undefined);
    const gathered = { callsRead: read.size, callsFailed: failed.length, firstFailure: failed[0]?.error };
    if (reading.signal?.aborted === true) return { verdicts: [], ...gathered, stopped: true };
    return { verdicts: this.group(read).map(decideField), ...gathered, stopped: false };
  }
}
