// The mapping proposal as the reports show it: the JSON report's `proposals` and `unexplained` arrays (keys
// in a fixed order, recorded numbers keeping their spelling) and the short block printed after the summary
// table. Pure: must never do I/O; the values in it come from redacted entries, and the command scrubs the
// text once more before printing it.
import { stringifyExact, type JsonObject, type JsonValue } from '../../shared/json-exact.js';
import type { Proposal, ProposalOutcome, ProposedEdit, SeenValue, Unexplained } from './proposal.js';

function editJson(edit: ProposedEdit): JsonObject {
  switch (edit.kind) {
    case 'rename': {
      const out: JsonObject = { kind: edit.kind, from: edit.from, to: edit.to };
      if (edit.format !== undefined) out.format = edit.format;
      if (edit.alsoIn !== undefined) out.alsoIn = [...edit.alsoIn];
      return out;
    }
    case 'format':
      return { kind: edit.kind, field: edit.field, from: edit.from, to: edit.to };
    case 'default':
      return edit.previous === undefined ? { kind: edit.kind, value: edit.value } : { kind: edit.kind, value: edit.value, previous: edit.previous };
  }
}

export function proposalJson(p: Proposal): JsonObject {
  return {
    record: p.record,
    legacyField: p.legacyField,
    edit: editJson(p.edit),
    evidence: { agreeing: p.evidence.agreeing, of: p.evidence.of, entries: [...p.evidence.entries] },
    methods: [...p.methods],
  };
}

function seenJson(v: SeenValue): JsonObject {
  const out: JsonObject = { entry: v.entry };
  if (v.recorded !== undefined) out.recorded = v.recorded;
  if (v.gateway !== undefined) out.gateway = v.gateway;
  return out;
}

export function unexplainedJson(u: Unexplained): JsonObject {
  return { record: u.record, legacyField: u.legacyField, methods: [...u.methods], values: u.values.map(seenJson), reason: u.reason };
}

/** The two arrays the JSON report adds after `rules`. */
export function proposalOutcomeJson(outcome: ProposalOutcome): { proposals: JsonValue[]; unexplained: JsonValue[] } {
  return { proposals: outcome.proposals.map(proposalJson), unexplained: outcome.unexplained.map(unexplainedJson) };
}

function editSummary(edit: ProposedEdit): string {
  switch (edit.kind) {
    case 'rename':
      return `rename: read \`${edit.to}\` (was \`${edit.from}\`)${edit.format ? ` as ${edit.format}` : ''}`;
    case 'format':
      return `format: ${edit.to} (was ${edit.from})`;
    case 'default':
      return `default: ${JSON.stringify(edit.value)}`;
  }
}

const valueText = (v: JsonValue | undefined): string => (v === undefined ? '(none)' : stringifyExact(v));

/** How many unexplained values the terminal shows per field (the JSON report has them all). */
const VALUES_PRINTED = 3;

/** What stdout says about the proposal, after the summary table. */
export function proposalSummaryText(outcome: ProposalOutcome, written: string | undefined): string {
  const lines: string[] = [];
  const { proposals, unexplained } = outcome;
  lines.push(
    proposals.length === 0
      ? 'mapping proposal: no edit to propose'
      : `mapping proposal: ${proposals.length} edit${proposals.length === 1 ? '' : 's'}${written ? `, written to ${written}` : ''}`,
  );
  for (const p of proposals) {
    lines.push(`  ${p.record}.${p.legacyField}: ${editSummary(p.edit)}; ${p.evidence.agreeing} of ${p.evidence.of} records (${p.methods.join(', ')})`);
  }
  if (unexplained.length > 0) lines.push(`unexplained fields: ${unexplained.length}`);
  for (const u of unexplained) {
    const values = u.values.slice(0, VALUES_PRINTED).map((v) => `entry ${v.entry}: ${valueText(v.recorded)} / ${valueText(v.gateway)}`);
    lines.push(`  ${u.record}.${u.legacyField}: ${u.reason}${values.length > 0 ? `; recorded / gateway: ${values.join(', ')}` : ''}`);
  }
  return `\n${lines.join('\n')}\n`;
}
