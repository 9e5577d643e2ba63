// Spells a guide document as one self-contained HTML page: its styles inline, no script, no external asset
// (a Content-Security-Policy forbids loading any), every value escaped, so nothing a mapping says can become
// markup. The rows an integration uses are highlighted. Pure.
import { escapeHtml, selfContainedPage } from '../shared/html-page.js';
import type { Block, GuideDocument, Inline, Text } from './document.js';

/** An id attribute's value: letters, digits, - and _ only. */
const safeId = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, '-');

function inline(piece: Inline): string {
  if (typeof piece === 'string') return escapeHtml(piece);
  if ('code' in piece) return `<code>${escapeHtml(piece.code)}</code>`;
  return `<strong>${escapeHtml(piece.strong)}</strong>`;
}

const html = (text: Text): string => text.map(inline).join('');

function blockHtml(block: Block): string {
  switch (block.kind) {
    case 'heading': {
      const id = block.anchor === undefined ? '' : ` id="${safeId(block.anchor)}"`;
      return `<h${block.level}${id}>${html(block.text)}</h${block.level}>`;
    }
    case 'paragraph':
      return `<p>${html(block.text)}</p>`;
    case 'list':
      return `<ul>\n${block.items.map((item) => `<li>${html(item)}</li>`).join('\n')}\n</ul>`;
    case 'table': {
      const head = `<tr>${block.header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>`;
      const rows = block.rows.map((r) => `<tr${r.highlight ? ' class="used"' : ''}>${r.cells.map((c) => `<td>${html(c)}</td>`).join('')}</tr>`);
      return `<table>\n<thead>${head}</thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`;
    }
    case 'code':
      return `<pre><code class="language-${escapeHtml(block.language)}">${escapeHtml(block.lines.join('\n'))}</code></pre>`;
    case 'callout':
      return `<aside class="callout">${html(block.text)}</aside>`;
  }
}

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330; background: #fff; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #d5dae3; padding-bottom: .3rem; }
code { font: 13px ui-monospace, monospace; background: #f1f3f7; padding: 0 .2em; border-radius: 3px; }
pre { background: #f1f3f7; padding: .8rem; overflow-x: auto; } pre code { padding: 0; }
table { border-collapse: collapse; width: 100%; margin: .8rem 0; } th, td { border: 1px solid #d5dae3; padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f7f8fa; } tr.used td { background: #fff5cc; font-weight: 600; }
.callout { border-left: 4px solid #e0a800; background: #fffaf0; padding: .6rem .9rem; margin: .8rem 0; }
`;

export function renderHtml(doc: GuideDocument): string {
  return selfContainedPage({ title: doc.title, style: STYLE, main: doc.blocks.map(blockHtml) });
}
