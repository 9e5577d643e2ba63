// The hourly rate limit per key + URL + verb, with an injected clock (no sleeping).
import { describe, expect, it } from 'vitest';
import { call, errorText, PRIMARY, SECONDARY, useSandbox } from './harness.js';

let clock = Date.UTC(2024, 0, 1, 10);
const sandbox = useSandbox({ rateLimitPerHour: 3, now: () => clock });

const RATE_LIMITED = errorText('rate_limited', 'hourly rate limit reached for this URL and key');

describe('rate limit', () => {
  it('answers 429 rate_limited with Retry-After once the hourly count for the URL is used', async () => {
    const get = () => call(sandbox().url, '/api/v1/clients?limit=1', { headers: PRIMARY });
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
    clock += 60_000; // one minute into the window
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(limited.text).toBe(RATE_LIMITED);
    expect(limited.headers.get('retry-after')).toBe('3540');
    clock += 3_539_500; // half a second before the reset
    expect((await get()).headers.get('retry-after')).toBe('1');
    clock += 500; // the window started with the first call; it resets one hour later
    expect((await get()).status).toBe(200);
  });

  it('counts each URL (query included), verb and key separately', async () => {
    const url = sandbox().url;
    for (let i = 0; i < 3; i++) expect((await call(url, '/api/v1/services', { headers: PRIMARY })).status).toBe(200);
    expect((await call(url, '/api/v1/services', { headers: PRIMARY })).status).toBe(429);
    expect((await call(url, '/api/v1/services?limit=5', { headers: PRIMARY })).status).toBe(200);
    expect((await call(url, '/api/v1/services/1', { headers: PRIMARY })).status).toBe(200);
    expect((await call(url, '/api/v1/services', { headers: SECONDARY })).status).toBe(200);
    expect((await call(url, '/api/v1/services', { method: 'HEAD', headers: PRIMARY })).status).toBe(200);
  });

  it('does not count calls without a valid key, nor the old URLs', async () => {
    const url = sandbox().url;
    for (let i = 0; i < 5; i++) {
      expect((await call(url, '/api/v1/timezones')).status).toBe(401);
      expect((await call(url, '/api/timezones')).status).toBe(410);
    }
    expect((await call(url, '/api/v1/timezones', { headers: PRIMARY })).status).toBe(200);
  });
});
