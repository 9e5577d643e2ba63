// The one redaction module: markers keep the JSON type; URLs, headers, bodies and free text lose secrets.
import { describe, expect, it } from 'vitest';
import { NumberLiteral, parseJsonExact } from '../../src/shared/json-exact.js';
import {
  REDACTED,
  redactBodyText,
  redactDifferenceValue,
  redactedLike,
  redactHeaderPairs,
  redactJson,
  redactLogUrl,
  redactUrl,
  SecretScrubber,
  secretsOfRequest,
} from '../../src/shared/redact.js';

describe('redaction', () => {
  it('replaces a secret by a marker of the same JSON type', () => {
    expect(redactedLike('tok_123')).toBe(REDACTED);
    expect(redactedLike(4242)).toBe(0);
    expect(redactedLike(new NumberLiteral('1.0'))).toBe(0);
    expect(redactedLike(true)).toBe(false);
    expect(redactedLike(null)).toBe(null);
    expect(redactedLike(['a'])).toEqual([]);
    expect(redactedLike({ a: 1 })).toEqual({});
    expect(redactJson({ token: 'tok_1', nested: [{ Password: 'pw', password2: 12 }], name: 'Ann' })).toEqual({
      token: REDACTED,
      nested: [{ Password: REDACTED, password2: 0 }],
      name: 'Ann',
    });
  });

  it('redacts URLs byte for byte elsewhere', () => {
    expect(redactUrl('https://user:pw@old.example.com/api/client?id=1&api_key=k%20y&x=2#f')).toBe(
      'https://[REDACTED]@old.example.com/api/client?id=1&api_key=[REDACTED]&x=2#f',
    );
    expect(redactUrl('/api/clients/0/10?API_KEY=abc')).toBe('/api/clients/0/10?API_KEY=[REDACTED]');
    expect(redactUrl('/api/clients/0/10')).toBe('/api/clients/0/10');
    expect(redactLogUrl('/api/clients/0/10')).toBe('/api/clients/0/10');
    expect(redactLogUrl('/api/client?email=a@b.example&x=1')).toBe('/api/client?email=[REDACTED]&x=1');
    expect(redactLogUrl('/api/client#email=a@b.example')).toBe('/api/client#email=a@b.example');
    expect(redactLogUrl('http://u:p@h.example/x')).toBe('http://[REDACTED]@h.example/x');
  });

  it('redacts headers and bodies of every encoding', () => {
    expect(redactHeaderPairs([['X-API-KEY', 'k'], ['Cookie', 'sid=1'], ['Authorization', 'Bearer t'], ['Accept', '*/*']])).toEqual([
      ['X-API-KEY', REDACTED],
      ['Cookie', REDACTED],
      ['Authorization', REDACTED],
      ['Accept', '*/*'],
    ]);
    expect(redactBodyText('revenue_amount=5&token=tok_visa&password=p%40ss', 'application/x-www-form-urlencoded')).toBe(
      `revenue_amount=5&token=${REDACTED}&password=${REDACTED}`,
    );
    expect(redactBodyText('{"token":"tok","amount":5.50}', 'application/json')).toBe('{"token":"[REDACTED]","amount":5.50}');
    const multipart = '--b\r\nContent-Disposition: form-data; name="token"\r\n\r\ntok_visa\r\n--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n--b--\r\n';
    const redacted = redactBodyText(multipart, 'multipart/form-data; boundary=b');
    expect(redacted).not.toContain('tok_visa');
    expect(redacted).toContain('name="x"\r\n\r\n1\r\n');
  });

  it('collects the secrets a request carries and scrubs them from any text', () => {
    const secrets = secretsOfRequest({
      url: '/api/client?id=1&api_key=query-key-1',
      headers: [['X-API-KEY', 'header-key-1'], ['Cookie', 'sid=cookie-value-1; theme=dark'], ['Authorization', 'Bearer bearer-tok-1']],
      bodyText: 'token=tok_card_1&password=hunter22',
    });
    expect(secrets).toEqual(expect.arrayContaining(['query-key-1', 'header-key-1', 'cookie-value-1', 'bearer-tok-1', 'tok_card_1', 'hunter22']));
    const scrubber = new SecretScrubber().add(...secrets);
    expect(scrubber.scrub('failed for header-key-1 at /x?k=tok_card_1 and hunter22')).toBe(
      `failed for ${REDACTED} at /x?k=${REDACTED} and ${REDACTED}`,
    );
    expect(scrubber.scrub('a%20b')).toBe('a%20b');
    expect(new SecretScrubber().add('with space').scrub('x=with+space&y=with%20space')).toBe(`x=${REDACTED}&y=${REDACTED}`);
    // Too short to scrub by content (names still redact it).
    expect(new SecretScrubber().add('ab').scrub('about')).toBe('about');
  });

  it('redacts difference values by their path and by content', () => {
    const scrubber = new SecretScrubber().add('sk_live_secret');
    expect(redactDifferenceValue('$.token', 'tok_abc', scrubber)).toBe(REDACTED);
    expect(redactDifferenceValue('$.data["password"]', 5, scrubber)).toBe(0);
    expect(redactDifferenceValue('$.response', { note: 'key sk_live_secret', password: 'x' }, scrubber)).toEqual({
      note: `key ${REDACTED}`,
      password: REDACTED,
    });
    expect(redactDifferenceValue('$.amount', parseJsonExact('1.0'), scrubber)).toEqual(new NumberLiteral('1.0'));
  });
});
