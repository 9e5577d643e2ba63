import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiKeyOf, queryMayHoldApiKey, withoutApiKeyParam } from '../../../../src/gateway/edge/api-key.js';
import { v1RequestPath, v1Search, v1Target } from '../../../../src/gateway/upstream/v1-url.js';
import { pathReadBackExactly } from './v1-url-properties.js';

const target = v1Target('https://svc.example.com/base');

describe('v1RequestPath', () => {
  it('builds paths under {UPSTREAM_URL}/api/v1 with an encoded query', () => {
    expect(v1RequestPath(target, '/clients', { email: 'a+b@x.com', offset: '0' })).toBe('/base/api/v1/clients?email=a%2Bb%40x.com&offset=0');
    expect(v1RequestPath(v1Target('http://h:1'), '/staff/12', {})).toBe('/api/v1/staff/12');
  });

  it.each(['/../admin', '/clients/../../x', '/clients/%2e%2e', '/clients/1/2', '//evil.example.com/x', '/clients?x=1', '/Clients', '/clients/1a', '', 'clients', '/clients/'])(
    'refuses %j',
    (path) => {
      expect(() => v1RequestPath(target, path, {})).toThrow(expect.objectContaining({ code: 'LGW_BAD_REQUEST' }));
    },
  );

  it('never yields a path outside /base/api/v1/, whatever it is given', () => {
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string(), fc.string()), (path, query) => {
        let built: string | undefined;
        try {
          built = v1RequestPath(target, path, query);
        } catch {
          return;
        }
        const url = new URL(built, 'https://svc.example.com');
        expect(url.host).toBe('svc.example.com');
        expect(url.pathname.startsWith('/base/api/v1/')).toBe(true);
        expect(url.pathname).not.toContain('..');
      }),
    );
  });

  it('sends a path that a URL parser reads back exactly as sent, whatever the upstream URL\'s own path', () => {
    // A few hundred inputs, always the same ones; v1-url.long.test.ts tries thousands.
    fc.assert(pathReadBackExactly, { numRuns: 300, seed: 20261202 });
  });
});

describe('v1Search', () => {
  const plain = fc.stringMatching(/^[A-Za-z0-9*._-]{0,8}$/);
  const anyText = fc.oneof(plain, fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom(' ', '+', '&', '=', '%', '~', "!'()", '\ud800', 'é'));
  const names = fc.oneof(plain, anyText, fc.constantFrom('__proto__', 'constructor', '0', '10', '-1'));

  it('writes any query exactly as URLSearchParams does, in the same order', () => {
    fc.assert(
      fc.property(fc.dictionary(names, fc.oneof(plain, anyText), { maxKeys: 6 }), (query) => {
        expect(v1Search(query)).toBe(new URLSearchParams(query).toString());
      }),
      { numRuns: 3000 },
    );
  });

  it('joins plain names and values as they are', () => {
    expect(v1Search({ offset: '20', limit: '100', status: 'active', 'a*b': 'x-y.z_' })).toBe('offset=20&limit=100&status=active&a*b=x-y.z_');
    expect(v1Search({})).toBe('');
    expect(v1Search({ q: 'a b', offset: '0' })).toBe('q=a+b&offset=0');
  });
});

describe('the API key rule', () => {
  it('header, else api_key parameter, else the configured key', () => {
    expect(apiKeyOf({ 'x-api-key': 'h' }, [['api_key', 'q']], 'c')).toBe('h');
    expect(apiKeyOf({}, [['api_key', 'q']], 'c')).toBe('q');
    expect(apiKeyOf({}, [], 'c')).toBe('c');
    expect(apiKeyOf({}, [], undefined)).toBeUndefined();
  });

  it('removes api_key (any spelling that decodes to it) and leaves other URLs byte for byte', () => {
    expect(withoutApiKeyParam('?a=1&api_key=k&b=%20')).toBe('?a=1&b=+');
    expect(withoutApiKeyParam('?api%5Fkey=k')).toBe('');
    expect(withoutApiKeyParam('?a=%2F&b=c+d')).toBe('?a=%2F&b=c+d');
    expect(withoutApiKeyParam('?%61pi_key=k&x=1')).toBe('?x=1');
    expect(withoutApiKeyParam('?not_api_key=k')).toBe('?not_api_key=k');
  });

  it('knows which queries certainly hold no api_key, and parses the rest', () => {
    expect(queryMayHoldApiKey('')).toBe(false);
    expect(queryMayHoldApiKey('limit=100&offset=0')).toBe(false);
    for (const search of ['api_key=k', 'a=1&api_key=k', 'api%5Fkey=k', '%61pi_key=k', 'x=%20']) expect(queryMayHoldApiKey(search)).toBe(true);
  });

  it('never says "certainly none" for a query whose parameters include api_key', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), fc.string())), fc.string(), fc.boolean(), (pairs, key, encodeName) => {
        const params = new URLSearchParams(pairs);
        params.append('api_key', key);
        const search = encodeName ? params.toString().replace(/api_key=/, '%61pi%5Fkey=') : params.toString();
        expect(queryMayHoldApiKey(search)).toBe(true);
        expect(new URLSearchParams(withoutApiKeyParam(`?${search}`)).has('api_key')).toBe(false);
      }),
    );
  });
});
