// Start-up and logs, as an operator meets them: the start line names the upstream's address (never its
// credentials or query); an UPSTREAM_URL that already ends in /api/v1 is refused naming the setting; /readyz
// turns 503 when v1 answers its probe 404 unknown_resource (a wrong base URL); a lookup's e-mail address,
// username and names never reach a log line; expected refusals (4xx, 501) log as warnings without a stack.
// A real gateway on a loopback port against a recording fake v1, its log captured in memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, upstreamAddress } from '../../src/gateway/config.js';
import { redactLogUrl, redactUrl } from '../../src/shared/redact.js';
import { get, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';

let upstream: RecordingUpstream;
beforeAll(async () => {
  upstream = await startRecordingUpstream((_req, res) => json(res, 200, v1List([])));
});
afterAll(async () => {
  await upstream.close();
});

const parsed = (g: TestGateway) => g.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
const requestLines = (g: TestGateway) => parsed(g).filter((l) => l.req !== undefined);

describe('the start line', () => {
  it("names the upstream's origin and path", async () => {
    const g = await startTestGateway({ UPSTREAM_URL: `${upstream.url}/svc/` });
    try {
      const start = parsed(g).find((l) => l.msg === 'legacy-gateway listening');
      expect(start?.upstream).toBe(`${upstream.url}/svc`);
    } finally {
      await g.close();
    }
  });

  it('never prints credentials, a query or a fragment', () => {
    expect(upstreamAddress('https://user:pw@v1.example.com:8443/base/?key=x#f')).toBe('https://v1.example.com:8443/base');
    expect(upstreamAddress('http://127.0.0.1:8081')).toBe('http://127.0.0.1:8081');
  });
});

describe('UPSTREAM_URL ending in /api/v1', () => {
  it.each(['https://v1.example.com/api/v1', 'https://v1.example.com/api/v1/', 'https://v1.example.com/API/V1', 'http://h/base/Api/v1//'])('%s is refused naming the setting', (url) => {
    expect(() => loadConfig({ UPSTREAM_URL: url })).toThrow(new ConfigError("UPSTREAM_URL must be the service's base URL, without /api/v1 (the gateway adds it)"));
  });

  it.each(['https://v1.example.com', 'https://v1.example.com/api', 'https://v1.example.com/api/v10', 'https://v1.example.com/api/v1/x'])('%s is accepted', (url) => {
    expect(loadConfig({ UPSTREAM_URL: url }).upstreamUrl).toBe(url);
  });
});

describe('/readyz and a wrong base URL', () => {
  it('is 503 when v1 answers its probe 404 unknown_resource, saying so', async () => {
    const wrong = await startRecordingUpstream((_req, res) => json(res, 404, { error: { code: 'unknown_resource', message: '/api/v1/api/v1 is not a v1 resource' } }));
    const g = await startTestGateway({ UPSTREAM_URL: wrong.url });
    try {
      const reply = await get(g.url, '/readyz');
      expect(reply.status).toBe(503);
      expect(reply.body).toEqual({
        status: 'upstream misaddressed',
        mappings: 13,
        upstream: 'unknown_resource',
        problem: "v1 answers its probe (GET /api/v1) with 404 unknown_resource: UPSTREAM_URL is not the service's base URL, and every v1 call would answer unknown_resource",
      });
      expect(wrong.received.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/v1']);
    } finally {
      await g.close();
      await wrong.close();
    }
  });

  it('stays ready on any other answer: a 401, or a 404 that is not v1 unknown_resource', async () => {
    for (const answer of [
      (res: Parameters<typeof json>[0]) => json(res, 401, { error: { code: 'invalid_key', message: 'no key' } }),
      (res: Parameters<typeof json>[0]) => json(res, 404, { error: { code: 'not_found', message: 'no such path' } }),
      (res: Parameters<typeof json>[0]) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<h1>unknown_resource</h1>');
      },
    ]) {
      const other = await startRecordingUpstream((_req, res) => answer(res));
      const g = await startTestGateway({ UPSTREAM_URL: other.url });
      try {
        const reply = await get(g.url, '/readyz');
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual({ status: 'ready', mappings: 13, upstream: 'reachable' });
      } finally {
        await g.close();
        await other.close();
      }
    }
  });

  it('is 503 "upstream unreachable" as before when nothing answers', async () => {
    const g = await startTestGateway({ UPSTREAM_URL: 'http://127.0.0.1:9', UPSTREAM_TIMEOUT_MS: '1000' });
    try {
      const reply = await get(g.url, '/readyz');
      expect(reply.status).toBe(503);
      expect(reply.body).toEqual({ status: 'upstream unreachable', mappings: 13, upstream: 'unreachable' });
    } finally {
      await g.close();
    }
  });
});

describe('no lookup names a person in a log line', () => {
  const PERSONAL = ['zelda.q@mail.example', 'zelda%40mail.example', 'zq-user-77', 'Zeldafirst', 'Quuxlast', 'KEY-SECRET-9'];

  it('masks email, username, first_name and last_name (and api_key) in the request line', async () => {
    const g = await startTestGateway({ UPSTREAM_URL: upstream.url });
    try {
      const url = '/api/client?email=zelda.q%40mail.example&username=zq-user-77&first_name=Zeldafirst&last_name=Quuxlast&api_key=KEY-SECRET-9';
      // The fake v1 knows no client: the lookup's v1 call is made, and answered "client not found".
      const reply = await get(g.url, url);
      expect(reply.text).toBe('{"status":"failure","response":"client not found"}');
      const byName = await get(g.url, '/api/client?First_Name=Zeldafirst&LAST_NAME=Quuxlast', { 'x-api-key': 'KEY-SECRET-9' });
      expect(byName.status).toBeLessThan(500);
      const lines = requestLines(g);
      expect(lines.map((l) => (l.req as { url: string }).url)).toEqual([
        '/api/client?email=[REDACTED]&username=[REDACTED]&first_name=[REDACTED]&last_name=[REDACTED]&api_key=[REDACTED]',
        '/api/client?First_Name=[REDACTED]&LAST_NAME=[REDACTED]',
      ]);
      expect(lines[0]?.upstreamCalls).toEqual([{ path: '/clients', outcome: 200, ms: expect.any(Number) }]);
      for (const line of g.logs) for (const value of PERSONAL) expect(line).not.toContain(value);
    } finally {
      await g.close();
    }
  });

  it('recordings keep the lookup (replay needs it); only log lines lose it', () => {
    const url = '/api/client?email=a%40b.example&username=u&api_key=k&x=1';
    expect(redactUrl(url)).toBe('/api/client?email=a%40b.example&username=u&api_key=[REDACTED]&x=1');
    expect(redactLogUrl(url)).toBe('/api/client?email=[REDACTED]&username=[REDACTED]&api_key=[REDACTED]&x=1');
    expect(redactLogUrl('http://u:p@h/api/client?last_name=Doe#frag')).toBe('http://[REDACTED]@h/api/client?last_name=[REDACTED]#frag');
  });
});

describe('expected refusals log as warnings, without an error or a stack', () => {
  it('4xx (bad request, refused by the guard, v1 401 relayed) and 501 (an operator file left unset)', async () => {
    const g = await startTestGateway({ UPSTREAM_URL: upstream.url });
    try {
      upstream.handle((_req, res) => json(res, 401, { error: { code: 'invalid_key', message: 'missing or unknown API key' } }));
      const statuses = [];
      for (const path of ['/api/staffs/x', `/api/staffs/0/1?x=${'a'.repeat(9000)}`, '/api/staffs/0/1', '/api/testimonials']) {
        statuses.push((await get(g.url, path)).status);
      }
      expect(statuses.map((s) => Math.floor(s / 100))).toEqual([4, 4, 4, 5]);
      expect(statuses.at(-1)).toBe(501);
      const lines = requestLines(g);
      expect(lines).toHaveLength(4);
      for (const line of lines) {
        expect(line.level, JSON.stringify(line)).toBe(40);
        expect(line.err).toBeUndefined();
        expect(line.msg).toBe('request completed');
      }
      for (const raw of g.logs) expect(raw).not.toMatch(/"stack"/);
    } finally {
      upstream.handle((_req, res) => json(res, 200, v1List([])));
      await g.close();
    }
  });
});
