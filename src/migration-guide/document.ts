// The migration guide as a document of plain blocks (headings, paragraphs, lists, tables, code), written by
// the guide's builders and spelled by the Markdown and HTML renderers. Text is kept as pieces (plain text,
// code, emphasis), never as markup: each renderer escapes every piece its own way, so nothing a mapping
// says can become markup of either format. Pure data.

/** One piece of inline text. */
export type Inline = string | { code: string } | { strong: string };

/** A run of inline text. */
export type Text = readonly Inline[];

export interface TableRow {
  cells: Text[];
  /** A row the integration the guide is written for uses (its call shapes, the codes its payments got): shown
   * highlighted. */
  highlight?: boolean;
}

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; text: Text; anchor?: string }
  | { kind: 'paragraph'; text: Text }
  | { kind: 'list'; items: Text[] }
  | { kind: 'table'; header: string[]; rows: TableRow[] }
  | { kind: 'code'; language: string; lines: string[] }
  /** A box that stands out: what the integration the guide is written for does. */
  | { kind: 'callout'; text: Text };

export interface GuideDocument {
  /** The page's title (the first heading). */
  title: string;
  blocks: Block[];
}

/** A code piece. */
export const code = (text: string): Inline => ({ code: text });

/** A strong piece. */
export const strong = (text: string): Inline => ({ strong: text });

/** Pieces joined with `separator` between them (`a, b, c`). */
export function joined(pieces: readonly Inline[], separator = ', '): Inline[] {
  return pieces.flatMap((piece, i) => (i === 0 ? [piece] : [separator, piece]));
}

/** The plain text of a run, as a reader would say it (code and emphasis marks dropped). */
export function plainTextOf(text: Text): string {
  return text.map((piece) => (typeof piece === 'string' ? piece : 'code' in piece ? piece.code : piece.strong)).join('');
}
