// The request and the whole bodies the reports now carry, end to end: a recording whose calls hold a key in
// the URL and in a header, a card token and passwords in form and JSON bodies, and replies that echo them,
// replayed (writes included) through the in-process gateway and the embedded sandbox. No secret reaches the
// JSON report, the HTML report, its copy-as-curl lines, stdout or stderr; what is shown instead is the
// marker, and the curl lines read the key from the environment.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../src/shared/redact.js';
import { runReplayCommand } from '../../src/replay/run/run-command.js';
import { replayGateway } from '../../src/commands/replay-gateway.js';

const SECRETS = {
  queryKey: 'rec-query-key-e2e-7181',
  headerKey: 'rec-header-key-e2e-7272',
  urlPassword: 'url-pass-e2e-7373',
  token: 'tok_e2e_card_7474',
  password: 'E2ePassw0rd!75',
  jsonToken: 'tok_e2e_json_7676',
};

const line = (request: object, response: object): string => JSON.stringify({ request, response });
const RECORDING = [
  line(
    { method: 'GET', url: `https://old.example.com/api/staff/1?api_key=${SECRETS.queryKey}&password=${SECRETS.urlPassword}`, headers: { 'x-api-key': SECRETS.headerKey } },
    { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 'success', response: { id: '1', note: `seen ${SECRETS.queryKey} and ${SECRETS.headerKey}` } }) },
  ),
  line(
    {
      method: 'POST',
      url: 'https://old.example.com/api/payment',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': SECRETS.headerKey },
      body: `client_id=1&service_id=1&revenue_amount=45.50&send_email=0&token=${SECRETS.token}&password=${encodeURIComponent(SECRETS.password)}&password2=${encodeURIComponent(SECRETS.password)}`,
    },
    { status: 200, headers: {}, body: JSON.stringify({ status: 'success', code: '0', echo: SECRETS.token }) },
  ),
  line(
    { method: 'POST', url: 'https://old.example.com/api/payment', headers: { 'content-type': 'application/json' }, body: { client_id: '1', service_id: '1', token: SECRETS.jsonToken } },
    { status: 200, headers: {}, body: { status: 'success', code: '0' } },
  ),
].join('\n');

interface JsonEntry {
  index: number;
  url: string;
  outcome: string;
  request?: { contentType?: string; apiKeyHeader?: boolean; body?: string };
  bodies?: { recorded: { kind: string; value?: unknown }; gateway: { kind: string; value?: unknown } };
}

/** The text of each copy-as-curl line of the page, entities decoded. */
function curlLines(html: string): string[] {
  return [...html.matchAll(/<div class="curl"><pre><code>([^<]*)<\/code>/g)].map((m) =>
    (m[1] as string).replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))),
  );
}

describe('secrets in the requests and bodies the reports show', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-report-secrets-'));
  const file = path.join(dir, 'traffic.jsonl');
  const out = { code: -1, stdout: '', stderr: '' };
  let jsonText = '';
  let html = '';
  let entries: JsonEntry[] = [];

  beforeAll(async () => {
    writeFileSync(file, RECORDING + '\n');
    const code = await runReplayCommand(
      file,
      { includeWrites: true, json: path.join(dir, 'report.json'), html: path.join(dir, 'report.html') },
      { stdout: { write: (t: string) => (out.stdout += t) }, stderr: { write: (t: string) => (out.stderr += t) }, env: {} },
      replayGateway,
    );
    out.code = code;
    jsonText = readFileSync(path.join(dir, 'report.json'), 'utf8');
    html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    entries = (JSON.parse(jsonText) as { entries: JsonEntry[] }).entries;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('never writes a key, a card token or a password, in any report, curl line or output', () => {
    expect(out.code).toBe(1);
    expect(entries.map((e) => e.outcome)).toEqual(['different', 'different', 'different']);
    for (const [name, text] of Object.entries({ json: jsonText, html, curl: curlLines(html).join('\n'), stdout: out.stdout, stderr: out.stderr })) {
      for (const secret of [...Object.values(SECRETS), encodeURIComponent(SECRETS.password), 'sandbox-primary-key']) {
        expect(text, `${secret} in ${name}`).not.toContain(secret);
      }
    }
  });

  it('shows the request body with its secrets replaced, and whole bodies with echoed secrets scrubbed', () => {
    // The two payments differ in their legacy code (`money`): the report lists them first.
    expect(entries.map((e) => e.index)).toEqual([1, 2, 0]);
    const [form, json, get] = entries as [JsonEntry, JsonEntry, JsonEntry];
    expect(get.url).toBe(`https://old.example.com/api/staff/1?api_key=${REDACTED}&password=${REDACTED}`);
    expect(get.request).toEqual({ apiKeyHeader: true });
    expect(get.bodies?.recorded).toEqual({ kind: 'json', value: { status: 'success', response: { id: '1', note: `seen ${REDACTED} and ${REDACTED}` } } });
    expect(get.bodies?.gateway.kind).toBe('json');
    expect(form.request).toEqual({
      contentType: 'application/x-www-form-urlencoded',
      apiKeyHeader: true,
      body: `client_id=1&service_id=1&revenue_amount=45.50&send_email=0&token=${REDACTED}&password=${REDACTED}&password2=${REDACTED}`,
    });
    expect(form.bodies?.recorded).toEqual({ kind: 'json', value: { status: 'success', code: '0', echo: REDACTED } });
    expect(json.request).toEqual({ contentType: 'application/json', body: `{"client_id":"1","service_id":"1","token":"${REDACTED}"}` });
  });

  it('writes copy-as-curl lines that read the key from the environment, to where `legacy-gateway serve` listens', () => {
    // Money entries (the two payments) first. The in-process gateway is gone: the lines go to serve's default address.
    expect(curlLines(html)).toEqual([
      `curl -sS -X POST 'http://127.0.0.1:8080/api/payment' -H "X-API-KEY: $LEGACY_API_KEY" -H 'Content-Type: application/x-www-form-urlencoded' ` +
        `--data-binary 'client_id=1&service_id=1&revenue_amount=45.50&send_email=0&token=${REDACTED}&password=${REDACTED}&password2=${REDACTED}'`,
      `curl -sS -X POST 'http://127.0.0.1:8080/api/payment' -H 'Content-Type: application/json' --data-binary '{"client_id":"1","service_id":"1","token":"${REDACTED}"}'`,
      `curl -sS 'http://127.0.0.1:8080/api/staff/1?api_key='"$LEGACY_API_KEY"'&password=${REDACTED}' -H "X-API-KEY: $LEGACY_API_KEY"`,
    ]);
  });
});
