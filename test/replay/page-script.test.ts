// The HTML page's script as the page carries it (src/replay/report/html/page-script.ts serialises its
// functions' source): one inline script, self-contained (it names nothing the page lacks, whatever compiled
// it), and unable to end the <script> element early. What it does in a browser is html-browser.test.ts.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PAGE_SCRIPT } from '../../src/replay/report/html/page-script.js';
import { extrasReport } from './html-report-extras.js';

describe('the HTML page script', () => {
  it('is the only script of the page, inline', () => {
    const html = extrasReport();
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html).toContain(`<script>${PAGE_SCRIPT}</script>`);
  });

  it('cannot end its element or open a comment in it', () => {
    expect(PAGE_SCRIPT).not.toMatch(/<\/script|<!--/i);
  });

  it('runs with only what a page has: on a page without the filter form it does nothing', () => {
    const asked: string[] = [];
    const document = {
      getElementById: (id: string) => {
        asked.push(id);
        return null;
      },
    };
    // Strict, as the page runs it: a name the script does not declare is a ReferenceError.
    expect(() => vm.runInNewContext(PAGE_SCRIPT, { document })).not.toThrow();
    expect(asked).toEqual(['filters']);
  });
});
