// Spells a guide document as GitHub-flavoured Markdown. Every piece of text is escaped, so a mapping's words
// (a description, a template, a message) stay text and never become Markdown; code spans are fenced with
// more backticks than they hold, and a `|` inside a table cell is escaped. Pure.
import type { Block, GuideDocument, Inline, Text } from './document.js';

const flat = (text: string): string => text.replace(/\r\n|\r|\n/g, ' ');

/** Plain text with every character Markdown could read as markup escaped. */
const escapeText = (text: string): string =>
  flat(text)
    .replace(/[\\`*[\]<>|~&]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, (c) => `\\${c}`)
    .replace(/^#/, '\\#');

/** A code span: fenced with one backtick more than the longest run inside; padded when it begins or ends with one. */
function codeSpan(text: string, inTable: boolean): string {
  const body = inTable ? flat(text).replace(/\|/g, '\\|') : flat(text);
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = body.startsWith('`') || body.endsWith('`') || body.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

function inline(piece: Inline, inTable: boolean): string {
  if (typeof piece === 'string') return escapeText(piece);
  if ('code' in piece) return codeSpan(piece.code, inTable);
  return `**${escapeText(piece.strong)}**`;
}

const line = (text: Text, inTable = false): string => text.map((p) => inline(p, inTable)).join('');

function table(block: Extract<Block, { kind: 'table' }>): string[] {
  const row = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [
    row(block.header.map(escapeText)),
    row(block.header.map(() => '---')),
    ...block.rows.map((r) =>
      row(r.cells.map((cell, i) => {
        const text = line(cell, true);
        if (!r.highlight || text === '') return text;
        return `**${i === 0 ? '▶ ' : ''}${text}**`;
      })),
    ),
  ];
}

function fenced(block: Extract<Block, { kind: 'code' }>): string[] {
  const longest = Math.max(2, ...block.lines.flatMap((l) => [...l.matchAll(/`+/g)].map((m) => m[0].length)));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${block.language}`, ...block.lines, fence];
}

function blockLines(block: Block): string[] {
  switch (block.kind) {
    case 'heading':
      return [`${'#'.repeat(block.level)} ${line(block.text)}`];
    case 'paragraph':
      return [line(block.text)];
    case 'list':
      return block.items.map((item) => `- ${line(item)}`);
    case 'table':
      return table(block);
    case 'code':
      return fenced(block);
    case 'callout':
      return [`> ${line(block.text)}`];
  }
}

export function renderMarkdown(doc: GuideDocument): string {
  return `${doc.blocks.map((b) => blockLines(b).join('\n')).join('\n\n')}\n`;
}
