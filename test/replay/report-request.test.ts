// What a differing entry carries into the reports besides its differences: the recorded request (body as
// sent, content type, whether the key was in a header) and both whole replies, all redacted; the
// copy-as-curl line built from them (run through bash here, to check its quoting); and the HTML page's
// budget of bodies.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '../../src/shared/json-exact.js';
import { REDACTED, SecretScrubber } from '../../src/shared/redact.js';
import { MAX_REPORT_BODY_CHARS, reportBody } from '../../src/replay/report/body.js';
import { redactReportEntry, type ReportEntry } from '../../src/replay/report/entry.js';
import { curlLine, KEY_VARIABLE } from '../../src/replay/report/html/curl-line.js';
import { HtmlEntrySelection } from '../../src/replay/report/html/entry-selection.js';
import { entryJson } from '../../src/replay/report/json.js';
import { parseBody } from '../../src/json-diff/reply-diff.js';
import type { RecordedExchange } from '../../src/replay/recordings/recording.js';
import { MAX_REQUEST_BODY_CHARS, requestView } from '../../src/replay/recordings/request-view.js';

type RecordedRequest = RecordedExchange['request'];

const form: RecordedRequest = {
  method: 'POST',
  url: 'https://old.example.com/api/payment',
  headers: [['Content-Type', 'application/x-www-form-urlencoded'], ['X-API-KEY', 'rec-key-1234']],
  body: { kind: 'text', text: 'client_id=1&revenue_amount=45.50&token=tok_card_9876&password=Pw%21secret' },
};

/** Runs a curl line in bash with `curl` printing its arguments, one a line. */
function curlArguments(line: string): string[] {
  const out = execFileSync('bash', ['-c', `curl() { printf '%s\\n' "$@"; }; ${line}`], { env: { [KEY_VARIABLE]: 'key-from-env' }, encoding: 'utf8' });
  return out.split('\n').slice(0, -1);
}

describe('the request of a report entry', () => {
  it('keeps the body as the replay sends it, its content type, and only whether a key header was sent', () => {
    expect(requestView(form)).toEqual({
      contentType: 'application/x-www-form-urlencoded',
      body: 'client_id=1&revenue_amount=45.50&token=tok_card_9876&password=Pw%21secret',
      apiKeyHeader: true,
    });
    // The recorder keeps a parsed form as an object: shown encoded as it is sent again.
    const parsed: RecordedRequest = { ...form, headers: [['content-type', 'application/x-www-form-urlencoded']], body: { kind: 'json', value: { client_id: '1', token: 'tok_card_9876' } } };
    expect(requestView(parsed)).toEqual({ contentType: 'application/x-www-form-urlencoded', body: 'client_id=1&token=tok_card_9876' });
    expect(requestView({ method: 'GET', url: '/api/clients/0/2?api_key=k', headers: [], body: undefined })).toEqual({});
    const big = requestView({ ...form, body: { kind: 'text', text: 'a='.padEnd(MAX_REQUEST_BODY_CHARS + 1, 'x') } });
    expect(big).toEqual({ contentType: 'application/x-www-form-urlencoded', bodyChars: MAX_REQUEST_BODY_CHARS + 1, apiKeyHeader: true });
  });

  it('never lets a card token, a password or a key reach the entry, by name or by value', () => {
    const scrubber = new SecretScrubber().add('rec-key-1234', 'tok_card_9876', 'Pw!secret', 'query-key-5678');
    const multipart: RecordedRequest = {
      ...form,
      headers: [['content-type', 'multipart/form-data; boundary=b']],
      body: { kind: 'form', fields: [['client_id', '1'], ['password2', 'other-pass-1'], ['note', 'card tok_card_9876']] },
    };
    const raw: ReportEntry = {
      index: 3,
      method: 'POST',
      url: 'https://old.example.com/api/payment?api_key=query-key-5678',
      legacyMethod: 'payment',
      outcome: 'different',
      diffs: [{ path: '$.status', kind: 'value', expected: 'success', actual: 'failure' }],
      request: requestView(form),
      bodies: {
        recorded: reportBody(parseBody('{"status":"success","echo":{"password":"Pw!secret"},"amount":45.50}'), '{"status":"success","echo":{"password":"Pw!secret"},"amount":45.50}'),
        gateway: reportBody(parseBody('failed for key rec-key-1234')),
      },
    };
    const safe = redactReportEntry(raw, scrubber);
    const safeMultipart = redactReportEntry({ ...raw, request: requestView(multipart) }, scrubber);
    const text = JSON.stringify([entryJson(safe), entryJson(safeMultipart), curlLine(safe.method, safe.url, safe.request)]);
    for (const secret of ['rec-key-1234', 'tok_card_9876', 'Pw!secret', 'Pw%21secret', 'query-key-5678', 'other-pass-1']) expect(text).not.toContain(secret);
    expect(safe.request?.body).toBe(`client_id=1&revenue_amount=45.50&token=${REDACTED}&password=${REDACTED}`);
    expect(safeMultipart.request?.body).toContain(`name="password2"\r\n\r\n${REDACTED}\r\n`);
    expect(safeMultipart.request?.body).toContain(`card ${REDACTED}`);
    // JSON keeps its numbers as spelled; a text body stays text.
    expect(entryJson(safe).bodies).toEqual({
      recorded: { kind: 'json', value: parseJsonExact(`{"status":"success","echo":{"password":"${REDACTED}"},"amount":45.50}`) },
      gateway: { kind: 'text', text: `failed for key ${REDACTED}` },
    });
    expect(JSON.stringify(entryJson(safe).request)).toBe(
      `{"contentType":"application/x-www-form-urlencoded","apiKeyHeader":true,"body":"client_id=1&revenue_amount=45.50&token=${REDACTED}&password=${REDACTED}"}`,
    );
  });

  it('keeps a body larger than the cap as its size only', () => {
    const text = JSON.stringify({ list: 'x'.repeat(MAX_REPORT_BODY_CHARS) });
    expect(reportBody(parseBody(text), text)).toEqual({ kind: 'omitted', chars: text.length });
    expect(reportBody(parseBody('  '))).toEqual({ kind: 'empty' });
    expect(reportBody(parseBody('{"a": 1.0}'), '{"a": 1.0}')).toEqual({ kind: 'json', text: '{"a": 1.0}' });
  });
});

describe('copy as curl', () => {
  it('reads the key from the environment, in the query or the header, and sends the redacted body byte for byte', () => {
    const get = curlLine('GET', `https://old.example.com/api/clients/0/2?api_key=${REDACTED}&x=it's`, { apiKeyHeader: true });
    expect(get).toBe(`curl -sS 'https://old.example.com/api/clients/0/2?api_key='"$${KEY_VARIABLE}"'&x=it'\\''s' -H "X-API-KEY: $${KEY_VARIABLE}"`);
    expect(curlArguments(get)).toEqual(['-sS', "https://old.example.com/api/clients/0/2?api_key=key-from-env&x=it's", '-H', 'X-API-KEY: key-from-env']);
    const body = `client_id=1&note=a'b $HOME\`x\`&token=${REDACTED}`;
    const post = curlLine('POST', '/api/payment', { contentType: 'application/x-www-form-urlencoded', body });
    expect(curlArguments(post)).toEqual(['-sS', '-X', 'POST', '/api/payment', '-H', 'Content-Type: application/x-www-form-urlencoded', '--data-binary', body]);
    // Another spelling of the parameter's name, and a key that is the last parameter.
    expect(curlArguments(curlLine('GET', `/api/x?id=1&API_KEY=${REDACTED}`, undefined))).toEqual(['-sS', '/api/x?id=1&API_KEY=key-from-env']);
  });
});

describe('the HTML page keeps bodies up to a budget', () => {
  it('shows later entries without bodies once the budget is spent, and counts every entry in the groups', () => {
    const selection = new HtmlEntrySelection(10, 10, 100);
    const differing = (index: number, size: number): ReportEntry => ({
      index,
      method: 'GET',
      url: '/api/staff/1',
      legacyMethod: 'staff',
      outcome: 'different',
      diffs: [{ path: '$.a', kind: 'value', expected: 1, actual: 2 }],
      bodies: { recorded: { kind: 'text', text: 'r'.repeat(size) }, gateway: { kind: 'text', text: 'g'.repeat(size) } },
    });
    selection.add(differing(0, 30));
    selection.add(differing(1, 30));
    selection.add(differing(2, 10));
    expect(selection.entries.map((e) => [e.index, e.bodies !== undefined, e.bodiesLeftOut === true])).toEqual([
      [0, true, false],
      [1, false, true],
      [2, true, false],
    ]);
    expect(selection.entriesWithoutBodies).toBe(1);
    expect(selection.groups.list()[0]).toMatchObject({ path: '$.a', entries: 3 });
  });
});
