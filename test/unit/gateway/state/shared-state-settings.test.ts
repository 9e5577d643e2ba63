// The settings of the state replicas share: REDIS_URL (validated, never echoed), REDIS_KEY_PREFIX (lgw: by
// default) and GATEWAY_SECRET (at least 32 characters, required with REDIS_URL, never echoed).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, maskRedisUrl } from '../../../../src/gateway/config.js';

const SECRET = 'a-secret-every-replica-shares-0123456789';

/** The ConfigError's message, or a failure when nothing was thrown. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('loadConfig accepted it');
}

describe('REDIS_URL, REDIS_KEY_PREFIX, GATEWAY_SECRET', () => {
  it('unset: in-process stores, and the default prefix', () => {
    const config = loadConfig({});
    expect(config.redisUrl).toBeUndefined();
    expect(config.gatewaySecret).toBeUndefined();
    expect(config.redisKeyPrefix).toBe('lgw:');
    expect(loadConfig({ REDIS_URL: '', GATEWAY_SECRET: '' }).redisUrl).toBeUndefined();
  });

  it('takes redis:// and rediss:// URLs with a password and a database number', () => {
    for (const url of ['redis://127.0.0.1:6379', 'redis://:pw@redis.internal:6380/2', 'rediss://user:p%40ss@redis.example.com/0', 'redis://[::1]:6379/']) {
      const config = loadConfig({ REDIS_URL: url, GATEWAY_SECRET: SECRET, REDIS_KEY_PREFIX: 'shop-a:' });
      expect(config.redisUrl).toBe(url);
      expect(config.gatewaySecret).toBe(SECRET);
      expect(config.redisKeyPrefix).toBe('shop-a:');
    }
  });

  it('refuses anything else in one line naming REDIS_URL, never repeating the URL or its password', () => {
    const cases: Array<[string, RegExp]> = [
      ['http://:hunter2-pass@h:6379', /^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL$/],
      ['not a url hunter2-pass', /^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL$/],
      ['redis:///2', /^REDIS_URL must name a host$/],
      ['redis://:hunter2-pass@h/db2', /^REDIS_URL must have no path or a database number as its path/],
      ['redis://:hunter2-pass@h?db=2', /^REDIS_URL must not carry a query string/],
    ];
    for (const [url, reason] of cases) {
      const message = refusal({ REDIS_URL: url, GATEWAY_SECRET: SECRET });
      expect(message).toMatch(reason);
      expect(message.split('\n')).toHaveLength(1);
      expect(message).not.toContain('hunter2');
    }
  });

  it('REDIS_URL without GATEWAY_SECRET stops start-up in one line naming GATEWAY_SECRET', () => {
    const message = refusal({ REDIS_URL: 'redis://:hunter2-pass@h:6379' });
    expect(message).toBe('GATEWAY_SECRET is required when REDIS_URL is set (the HMAC secret every replica shares, at least 32 characters)');
    // Beside another bad setting, each has its own line.
    expect(refusal({ REDIS_URL: 'redis://h', PORT: 'x' }).split('\n')).toEqual(['PORT must be a whole number from 0 to 65535, got "x"', expect.stringMatching(/^GATEWAY_SECRET is required/)]);
  });

  it('GATEWAY_SECRET has at least 32 characters, and is never repeated', () => {
    const message = refusal({ REDIS_URL: 'redis://h', GATEWAY_SECRET: 'short-secret-xyz' });
    expect(message).toBe('GATEWAY_SECRET must be at least 32 characters');
    expect(message).not.toContain('short-secret-xyz');
    // Without REDIS_URL it is not needed, but still checked when given.
    expect(loadConfig({ GATEWAY_SECRET: SECRET }).gatewaySecret).toBe(SECRET);
  });

  it('REDIS_KEY_PREFIX is 1 to 64 visible ASCII characters', () => {
    expect(refusal({ REDIS_KEY_PREFIX: 'has space:' })).toBe('REDIS_KEY_PREFIX must be 1 to 64 visible ASCII characters, got "has space:"');
    expect(refusal({ REDIS_KEY_PREFIX: 'x'.repeat(65) })).toBe(`REDIS_KEY_PREFIX must be 1 to 64 visible ASCII characters, got "${'x'.repeat(57)}..."`);
    expect(loadConfig({ REDIS_KEY_PREFIX: 'x'.repeat(64) }).redisKeyPrefix).toBe('x'.repeat(64));
  });

  it('maskRedisUrl hides the password, and only the password', () => {
    expect(maskRedisUrl('redis://:hunter2@h:6379/2')).toBe('redis://:***@h:6379/2');
    expect(maskRedisUrl('rediss://app:hunter2@h')).toBe('rediss://app:***@h');
    expect(maskRedisUrl('redis://h:6379')).toBe('redis://h:6379');
  });
});
