// Which recorded calls are replayed, and why the others are skipped.
import { describe, expect, it } from 'vitest';
import { decideReplay, isLoopbackUrl, isPaymentCall, type SafetyPolicy } from '../../src/replay/run/safety.js';

const policy = (p: Partial<SafetyPolicy> = {}): SafetyPolicy => ({
  includeWrites: false,
  allowProductionWrites: false,
  targetIsSandboxOrLoopback: false,
  allPaths: false,
  ...p,
});
const call = (method: string, url: string, extra: Partial<{ hasRecordedReply: boolean; recordedStatus: number; redactedSecrets: string[] }> = {}) => ({
  method,
  url,
  hasRecordedReply: true,
  recordedStatus: 200,
  ...extra,
});

describe('decideReplay', () => {
  it('replays reads and skips writes by default', () => {
    expect(decideReplay(call('GET', 'https://old.example.com/api/clients/0/10'), policy())).toEqual({ replay: true });
    for (const m of ['POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND']) {
      expect(decideReplay(call(m, '/api/v1/clients/1'), policy())).toEqual({ replay: false, reason: 'write' });
      expect(decideReplay(call(m, '/api/v1/clients/1'), policy({ includeWrites: true }))).toEqual({ replay: true });
    }
  });

  it('replays a payment only with --include-writes and a safe target, or with --allow-production-writes', () => {
    const pay = call('POST', 'https://old.example.com/api/payment');
    expect(decideReplay(pay, policy({ targetIsSandboxOrLoopback: true }))).toEqual({ replay: false, reason: 'payment' });
    expect(decideReplay(pay, policy({ includeWrites: true }))).toEqual({ replay: false, reason: 'payment' });
    expect(decideReplay(pay, policy({ includeWrites: true, targetIsSandboxOrLoopback: true }))).toEqual({ replay: true });
    expect(decideReplay(pay, policy({ includeWrites: true, allowProductionWrites: true }))).toEqual({ replay: true });
    // The gateway's rule: `/api/payment` spelled exactly so (a trailing slash allowed), the method as the
    // replay sends it (upper-cased).
    expect(isPaymentCall('post', '/api/payment/')).toBe(true);
    expect(isPaymentCall('POST', '/API/Payment/')).toBe(false);
    expect(isPaymentCall('GET', '/api/payment')).toBe(false);
  });

  it('keeps another spelling of the payment path a write: skipped without --include-writes', () => {
    for (const url of ['/API/PAYMENT', 'https://old.example.com/Api/Payment/', '/api/pay%6dent']) {
      expect(decideReplay(call('POST', url), policy({ targetIsSandboxOrLoopback: true })), url).toEqual({ replay: false, reason: 'write' });
      // Not the payment to the gateway either (it passes the call through): a write like any other.
      expect(decideReplay(call('POST', url), policy({ includeWrites: true })), url).toEqual({ replay: true });
    }
    for (const m of ['post', 'Put', 'MKCOL', 'X-CUSTOM']) {
      expect(decideReplay(call(m, '/api/clients/1'), policy()), m).toEqual({ replay: false, reason: 'write' });
    }
  });

  it('reads the payment on the path as it is sent: dot segments resolved, as the HTTP client resolves them', () => {
    for (const url of ['/api/./payment', '/api/clients/../payment', 'https://old.example.com/api/x/../payment?a=1']) {
      expect(isPaymentCall('POST', url), url).toBe(true);
      expect(decideReplay(call('POST', url), policy({ includeWrites: true })), url).toEqual({ replay: false, reason: 'payment' });
    }
  });

  it('skips calls outside the legacy API unless --all-paths, and calls without a recorded reply', () => {
    expect(decideReplay(call('GET', 'https://old.example.com/assets/app.js'), policy())).toEqual({ replay: false, reason: 'not-api' });
    expect(decideReplay(call('GET', 'data:text/plain,hi'), policy({ allPaths: true }))).toEqual({ replay: false, reason: 'not-api' });
    expect(decideReplay(call('GET', 'https://old.example.com/assets/app.js'), policy({ allPaths: true }))).toEqual({ replay: true });
    expect(decideReplay(call('GET', '/ondemand/x/1/2'), policy())).toEqual({ replay: true });
    expect(decideReplay(call('GET', '/api/clients', { hasRecordedReply: false }), policy())).toEqual({ replay: false, reason: 'no-recorded-reply' });
    expect(decideReplay(call('GET', '/api/clients', { recordedStatus: 304 }), policy())).toEqual({ replay: false, reason: 'no-recorded-reply' });
    expect(decideReplay(call('GET', '/api/clients', { recordedStatus: 0 }), policy())).toEqual({ replay: false, reason: 'no-recorded-reply' });
  });

  it('never sends a call whose recording holds a secret only as the marker, whatever the options', () => {
    const redacted = call('POST', '/api/payment', { redactedSecrets: ['token', 'password'] });
    const expected = { replay: false, notComparable: 'redacted in the recording: token, password' };
    expect(decideReplay(redacted, policy({ includeWrites: true, targetIsSandboxOrLoopback: true }))).toEqual(expected);
    expect(decideReplay(redacted, policy({ includeWrites: true, allowProductionWrites: true }))).toEqual(expected);
    // It cannot be compared with any option: said before the options' skips, after "not the API".
    expect(decideReplay(redacted, policy())).toEqual(expected);
    expect(decideReplay({ ...redacted, url: '/assets/pay' }, policy())).toEqual({ replay: false, reason: 'not-api' });
    expect(decideReplay(call('POST', '/api/payment', { redactedSecrets: [] }), policy({ includeWrites: true, targetIsSandboxOrLoopback: true }))).toEqual({ replay: true });
  });

  it('finds a call the recording shows refused for its key (401, 403) not comparable, unless --compare-key-refusals', () => {
    for (const status of [401, 403]) {
      const refused = call('GET', '/api/clients/0/5', { recordedStatus: status });
      const expected = {
        replay: false,
        notComparable: `refused for its key in the recording (HTTP ${status}): the replay would send its own key; --compare-key-refusals sends it anyway`,
      };
      expect(decideReplay(refused, policy())).toEqual(expected);
      // A refused write too, whatever the write options: the recording cannot be compared.
      expect(decideReplay(call('POST', '/api/payment', { recordedStatus: status }), policy())).toEqual(expected);
      expect(decideReplay(refused, policy({ compareKeyRefusals: true }))).toEqual({ replay: true });
      // Compared, the write options still apply.
      expect(decideReplay(call('POST', '/api/payment', { recordedStatus: status }), policy({ compareKeyRefusals: true }))).toEqual({ replay: false, reason: 'payment' });
    }
    for (const status of [400, 404, 429, 500]) expect(decideReplay(call('GET', '/api/clients/0/5', { recordedStatus: status }), policy())).toEqual({ replay: true });
  });

  it('knows loopback targets', () => {
    for (const u of ['http://127.0.0.1:8080', 'http://localhost', 'http://[::1]:80', 'http://127.1.2.3', 'http://app.localhost']) expect(isLoopbackUrl(u), u).toBe(true);
    for (const u of ['https://api.example.com', 'http://10.0.0.1', 'http://0.0.0.0:9', 'http://127.0.0.1.example.com', 'nonsense']) expect(isLoopbackUrl(u), u).toBe(false);
  });
});
