// Applies proposed edits to the text of mapping files. Each file is read with the yaml package's Document
// API; an edit changes the node of the field (in `fields`, and in a view entry that overrides what the edit
// changes), and only that node's text is written back, in place, with a comment line above it giving the
// evidence. Everything else, the shipped comments included, stays byte for byte, so the copy diffs against
// the shipped mappings as its edits and nothing more. A rename of a v1 field that no record read still has
// also renames it where a method file reading the record names it (sort keys, lookup matches).
// A JSON mapping file (JSON has no comments) is written again whole, with the edits, as JSON.
// Pure: texts in, texts out; the edits must leave files the mapping schema loads (the caller checks it).
import { Document, isMap, isScalar, isSeq, Pair, parseDocument, Scalar, type YAMLMap } from 'yaml';
import type { Proposal, ProposedEdit } from './proposal.js';

/** A proposal and, for a rename, the v1 field it retires (absent from every v1 record read). */
export interface ProposalToApply {
  proposal: Proposal;
  retiredV1Field?: string | undefined;
}

/** Where the records live inside a mappings directory, and the names their files may have. */
const RECORD_FILE = /^records\/([^/]+)\.(ya?ml|json)$/i;
const METHOD_FILE = /^[^/]+\.(ya?ml|json)$/i;

interface Splice {
  at: number;
  end: number;
  text: string;
}

interface OpenFile {
  doc: Document;
  text: string;
  json: boolean;
  splices: Splice[];
}

/** How many entry numbers a comment lists before it says how many there are. */
const ENTRIES_SHOWN = 10;

function entriesText(entries: readonly number[]): string {
  const shown = entries.slice(0, ENTRIES_SHOWN).join(', ');
  return entries.length > ENTRIES_SHOWN ? `entries ${shown}, ... (${entries.length} entries)` : `entries ${shown}`;
}

function evidenceText(p: Proposal): string {
  return `${p.evidence.agreeing} of ${p.evidence.of} records agree (${entriesText(p.evidence.entries)})`;
}

function editText(edit: ProposedEdit): string {
  switch (edit.kind) {
    case 'rename':
      return `read v1 \`${edit.to}\` (was \`${edit.from}\`)${edit.format ? `, format ${edit.format}` : ''}`;
    case 'format':
      return `format ${edit.to} (was ${edit.from})`;
    case 'default':
      return `default ${JSON.stringify(edit.value)} (v1 sends no such field)`;
  }
}

const keyOf = (pair: Pair): unknown => (isScalar(pair.key) ? pair.key.value : pair.key);

function setPair(map: YAMLMap, key: string, value: Scalar, afterName: boolean): void {
  const at = map.items.findIndex((p) => keyOf(p) === key);
  if (at >= 0) {
    (map.items[at] as Pair).value = value;
    return;
  }
  const name = map.items.findIndex((p) => keyOf(p) === 'name');
  map.items.splice(afterName && name >= 0 ? name + 1 : map.items.length, 0, new Pair(new Scalar(key), value));
}

function deletePair(map: YAMLMap, key: string): void {
  const at = map.items.findIndex((p) => keyOf(p) === key);
  if (at >= 0) map.items.splice(at, 1);
}

function setFormat(map: YAMLMap, format: string): void {
  if (format === 'text') deletePair(map, 'format');
  else setPair(map, 'format', new Scalar(format), false);
}

/** The keys of a field an edit decides (a view entry that sets one of them is edited too). */
function keysDecided(edit: ProposedEdit): string[] {
  if (edit.kind === 'format') return ['format'];
  if (edit.kind === 'default') return ['default'];
  return edit.format ? ['from', 'derive', 'missing', 'format'] : ['from', 'derive', 'missing'];
}

function applyEdit(map: YAMLMap, legacyField: string, edit: ProposedEdit): void {
  switch (edit.kind) {
    case 'rename':
      deletePair(map, 'derive');
      deletePair(map, 'missing');
      if (edit.to === legacyField) deletePair(map, 'from');
      else setPair(map, 'from', new Scalar(edit.to), true);
      if (edit.format) setFormat(map, edit.format);
      return;
    case 'format':
      setFormat(map, edit.to);
      return;
    case 'default': {
      // Quoted: a plain `10` or `true` would load as a number or a boolean, and a default is text.
      const value = new Scalar(edit.value);
      value.type = Scalar.QUOTE_DOUBLE;
      setPair(map, 'default', value, false);
      return;
    }
  }
}

/** The node's text again, in the shipped style: flow maps padded (`{ name: x }`), block maps indented. Its
 * comments stay where they are in the file (outside the node's range), so the copy written has none. */
function nodeText(node: YAMLMap, column: number): string {
  const bare = node.clone() as YAMLMap;
  bare.commentBefore = undefined;
  bare.comment = undefined;
  bare.spaceBefore = false;
  const doc = new Document();
  doc.contents = bare;
  const text = doc.toString({ lineWidth: 0, flowCollectionPadding: true }).replace(/\n$/, '');
  return text.split('\n').map((line, i) => (i === 0 ? line : ' '.repeat(column) + line)).join('\n');
}

/** Queues the node's new text and, on its own line above the node's line, the comment. */
function rewrite(file: OpenFile, node: YAMLMap, comment: string): void {
  const [start, valueEnd] = node.range ?? [0, 0];
  // A block map's range runs to the start of the next line: the line break stays.
  let end = valueEnd;
  while (end > start && /\s/.test(file.text.charAt(end - 1))) end--;
  const lineStart = file.text.lastIndexOf('\n', start - 1) + 1;
  const indent = /^[ \t]*/.exec(file.text.slice(lineStart))?.[0] ?? '';
  file.splices.push({ at: start, end, text: nodeText(node, start - lineStart) });
  file.splices.push({ at: lineStart, end: lineStart, text: `${indent}# ${comment.replace(/[\r\n]+/g, ' ')}\n` });
}

function closeFile(file: OpenFile): string {
  if (file.json) return `${JSON.stringify(file.doc.toJS(), null, 2)}\n`;
  let text = file.text;
  // From the end backwards, so earlier offsets stay true; at one offset, a replacement before an insertion.
  const ordered = [...file.splices].sort((a, b) => b.at - a.at || b.end - a.end);
  for (const s of ordered) text = text.slice(0, s.at) + s.text + text.slice(s.end);
  return text;
}

function mapsNamed(seq: unknown, name: string): YAMLMap[] {
  if (!isSeq(seq)) return [];
  return seq.items.filter((item): item is YAMLMap => isMap(item) && item.get('name') === name);
}

class MappingEditor {
  private readonly open = new Map<string, OpenFile>();

  constructor(private readonly files: ReadonlyMap<string, string>) {}

  private file(path: string): OpenFile {
    let file = this.open.get(path);
    if (!file) {
      const text = this.files.get(path) as string;
      file = { doc: parseDocument(text, { keepSourceTokens: false }), text, json: /\.json$/i.test(path), splices: [] };
      this.open.set(path, file);
    }
    return file;
  }

  private recordPath(record: string): string | undefined {
    return [...this.files.keys()].find((p) => RECORD_FILE.exec(p)?.[1] === record);
  }

  /** The field in `fields`, and the view entries overriding what the edit decides. */
  editRecord(p: Proposal): void {
    const path = this.recordPath(p.record);
    if (path === undefined) throw new Error(`no record file for "${p.record}"`);
    const file = this.file(path);
    const comment = `replay proposal: ${editText(p.edit)}; ${evidenceText(p)}`;
    const nodes = mapsNamed(file.doc.get('fields'), p.legacyField);
    if (nodes.length === 0) throw new Error(`${path}: no field "${p.legacyField}"`);
    const views = file.doc.get('views');
    if (isMap(views)) {
      const decided = keysDecided(p.edit);
      for (const pair of views.items) {
        nodes.push(...mapsNamed(pair.value, p.legacyField).filter((o) => o.items.some((i) => decided.includes(String(keyOf(i))))));
      }
    }
    for (const node of nodes) {
      applyEdit(node, p.legacyField, p.edit);
      rewrite(file, node, comment);
    }
  }

  /** Method files reading the record that name the retired v1 field: sort keys and lookup matches. */
  followRename(p: Proposal, retired: string, to: string): string[] {
    const places: string[] = [];
    for (const path of [...this.files.keys()].filter((f) => METHOD_FILE.test(f)).sort()) {
      const file = this.file(path);
      if (file.doc.get('record') !== p.record) continue;
      for (const list of ['sort', 'exclusive', 'combinable']) {
        const seq = file.doc.get(list);
        if (!isSeq(seq)) continue;
        seq.items.forEach((item, i) => {
          if (!isMap(item) || item.get('field') !== retired) return;
          item.set('field', to);
          rewrite(file, item, `replay proposal: v1 \`${retired}\` is now \`${to}\` (${p.record}.${p.legacyField}: ${evidenceText(p)})`);
          places.push(`${path}: ${list}.${i}.field`);
        });
      }
    }
    return places;
  }

  /** Every file that changed, with its new text. */
  texts(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [path, file] of this.open) if (file.splices.length > 0) out.set(path, closeFile(file));
    return out;
  }
}

/**
 * Applies the proposals to the mapping files (relative path -> text, `records/<record>.yaml` included) and
 * returns the files that changed. A rename that retires a v1 field gets `alsoIn`, the places that followed it.
 */
export function applyProposals(files: ReadonlyMap<string, string>, proposals: readonly ProposalToApply[]): Map<string, string> {
  const editor = new MappingEditor(files);
  for (const { proposal, retiredV1Field } of proposals) {
    editor.editRecord(proposal);
    const edit = proposal.edit;
    if (edit.kind === 'rename' && retiredV1Field !== undefined) {
      const places = editor.followRename(proposal, retiredV1Field, edit.to);
      if (places.length > 0) edit.alsoIn = places;
    }
  }
  return editor.texts();
}
