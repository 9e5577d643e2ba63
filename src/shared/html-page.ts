// One self-contained HTML page, as the migration guide and the usage report are written: its styles inline, no
// script, and a Content-Security-Policy that forbids loading anything (an inline `data:` image allowed when
// asked), so that nothing a mapping or a gateway's report says can fetch or run; and the escaping every value
// written into it goes through. Pure.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as element content or an attribute's value: every character that could end either is escaped. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

export interface SelfContainedPage {
  /** The page's title, as text (escaped here). */
  title: string;
  /** The page's style sheet. */
  style: string;
  /** Allow images given inline as `data:` URLs (the usage report's charts). */
  dataImages?: boolean;
  /** The lines inside `<main>`, already HTML. */
  main: readonly string[];
}

export function selfContainedPage(page: SelfContainedPage): string {
  const policy = `default-src 'none'; style-src 'unsafe-inline'${page.dataImages ? '; img-src data:' : ''}`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    `<title>${escapeHtml(page.title)}</title>`,
    `<style>${page.style}</style>`,
    '</head>',
    '<body>',
    '<main>',
    ...page.main,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
