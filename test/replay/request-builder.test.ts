// The replayed request: recorded path and query on the target, keys replaced, credentials dropped.
import busboy from 'busboy';
import { describe, expect, it } from 'vitest';
import { buildReplayRequest } from '../../src/replay/run/request-builder.js';
import type { RecordedExchange } from '../../src/replay/recordings/recording.js';

const recorded = (r: Partial<RecordedExchange['request']>): RecordedExchange['request'] => ({
  method: 'GET',
  url: 'https://old.example.com/api/clients/0/10',
  headers: [],
  body: undefined,
  ...r,
});

describe('buildReplayRequest', () => {
  it('swaps scheme and host, keeps path and query as recorded', () => {
    const req = buildReplayRequest(recorded({ url: 'https://old.example.com/api/client?first_name=Ann%20Marie&x=%7C#frag' }), {
      baseUrl: 'http://127.0.0.1:8080/',
      apiKey: undefined,
    });
    expect(req.url).toBe('http://127.0.0.1:8080/api/client?first_name=Ann%20Marie&x=%7C');
    expect(buildReplayRequest(recorded({ url: '/api/staff/1' }), { baseUrl: 'http://gw:1/prefix', apiKey: undefined }).url).toBe('http://gw:1/prefix/api/staff/1');
  });

  it('replaces recorded keys, never reuses them', () => {
    const withHeader = buildReplayRequest(recorded({ headers: [['X-API-KEY', 'recorded-key'], ['Accept', 'application/json']] }), {
      baseUrl: 'http://gw',
      apiKey: 'new-key',
    });
    expect(withHeader.headers).toEqual({ 'x-api-key': 'new-key', accept: 'application/json', 'legacy-gateway-replay': '1' });
    const inQuery = buildReplayRequest(recorded({ url: 'https://old/api/clients?api_key=recorded-key&a=1' }), { baseUrl: 'http://gw', apiKey: 'new key' });
    expect(inQuery.url).toBe('http://gw/api/clients?api_key=new%20key&a=1');
    expect(inQuery.headers['x-api-key']).toBeUndefined();
    const noKey = buildReplayRequest(recorded({ url: 'https://old/api/clients?api_key=recorded-key', headers: [['x-api-key', 'recorded-key']] }), {
      baseUrl: 'http://gw',
      apiKey: undefined,
    });
    expect(noKey.url).toBe('http://gw/api/clients');
    expect(JSON.stringify(noKey)).not.toContain('recorded-key');
  });

  it('drops hop-by-hop, conditional and credential headers and HTTP/2 pseudo-headers', () => {
    const req = buildReplayRequest(
      recorded({
        headers: [
          [':authority', 'old'],
          ['Connection', 'keep-alive, X-Trace'],
          ['X-Trace', '1'],
          ['Cookie', 'sid=1'],
          ['Authorization', 'Basic x'],
          ['If-None-Match', '"e"'],
          ['Accept-Encoding', 'gzip'],
          ['User-Agent', 'ua'],
          ['Accept', 'a'],
          ['accept', 'b'],
          // A recorded replay header is the replay's to set.
          ['Legacy-Gateway-Replay', '0'],
        ],
      }),
      { baseUrl: 'http://gw', apiKey: undefined },
    );
    expect(req.headers).toEqual({ 'user-agent': 'ua', accept: 'a, b', 'legacy-gateway-replay': '1' });
  });

  it('sends the recorded body in the form it came in', () => {
    const text = buildReplayRequest(recorded({ method: 'POST', body: { kind: 'text', text: 'a=1&b=2' }, headers: [['Content-Type', 'application/x-www-form-urlencoded']] }), { baseUrl: 'http://gw', apiKey: undefined });
    expect(text.body).toBe('a=1&b=2');
    const form = buildReplayRequest(recorded({ method: 'POST', body: { kind: 'form', fields: [['a', '1'], ['b', 'x y']] } }), { baseUrl: 'http://gw', apiKey: undefined });
    expect(form).toMatchObject({ body: 'a=1&b=x+y', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const parsedForm = buildReplayRequest(
      recorded({ method: 'POST', body: { kind: 'json', value: { revenue_amount: '5.00', send_email: 0 } }, headers: [['content-type', 'multipart/form-data; boundary=x']] }),
      { baseUrl: 'http://gw', apiKey: undefined },
    );
    expect(parsedForm.headers['content-type']).toBe('multipart/form-data; boundary=----legacy-gateway-replay');
    expect(parsedForm.body).toBe(
      '------legacy-gateway-replay\r\nContent-Disposition: form-data; name="revenue_amount"\r\n\r\n5.00\r\n' +
        '------legacy-gateway-replay\r\nContent-Disposition: form-data; name="send_email"\r\n\r\n0\r\n' +
        '------legacy-gateway-replay--\r\n',
    );
    const parsedUrlencoded = buildReplayRequest(
      recorded({ method: 'POST', body: { kind: 'json', value: { a: '1', b: 'x y' } }, headers: [['content-type', 'application/x-www-form-urlencoded']] }),
      { baseUrl: 'http://gw', apiKey: undefined },
    );
    expect(parsedUrlencoded).toMatchObject({ body: 'a=1&b=x+y', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const json = buildReplayRequest(recorded({ method: 'POST', body: { kind: 'json', value: { a: [1] } } }), { baseUrl: 'http://gw', apiKey: undefined });
    expect(json).toMatchObject({ body: '{"a":[1]}', headers: { 'content-type': 'application/json' } });
    expect(buildReplayRequest(recorded({ body: { kind: 'text', text: 'x' } }), { baseUrl: 'http://gw', apiKey: undefined }).body).toBeUndefined();
  });

  it('replays a multipart recording as multipart, its fields intact whatever they hold', async () => {
    const fields: Array<[string, string]> = [
      ['token', 'tok_visa'],
      ['note', 'line one\r\nline two, with ------legacy-gateway-replay inside'],
      ['quote"d', ''],
      ['amount', '5.00'],
    ];
    const req = buildReplayRequest(recorded({ method: 'POST', body: { kind: 'form', fields }, headers: [['Content-Type', 'multipart/form-data; boundary=old']] }), {
      baseUrl: 'http://gw',
      apiKey: undefined,
    });
    // A value holding the usual boundary makes it longer; the body still parses back to the same fields.
    expect(req.headers['content-type']).toBe('multipart/form-data; boundary=----legacy-gateway-replay-x');
    const parsed: Array<[string, string]> = [];
    await new Promise<void>((resolve, reject) => {
      const parser = busboy({ headers: { 'content-type': req.headers['content-type']! } });
      parser.on('field', (name, value) => parsed.push([name, value]));
      parser.on('close', resolve);
      parser.on('error', reject);
      parser.end(Buffer.from(req.body!));
    });
    expect(parsed).toEqual(fields.map(([n, v]) => [n.replace('"', '%22'), v]));
  });
});
