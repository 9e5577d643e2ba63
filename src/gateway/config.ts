// The gateway's settings, read once from the environment and validated with zod.
// It must never log or echo a value it reads: UPSTREAM_API_KEY is a secret.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { expectation, issueSentence } from '../shared/issue-text.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The shipped mappings: `mappings/` at the package root (two levels above src/gateway/ or dist/gateway/). */
export const SHIPPED_MAPPINGS_DIR = path.resolve(here, '..', '..', 'mappings');

const port = z.coerce.number().int().min(0).max(65535);
const DAY_MS = 24 * 3600 * 1000;
const millis = z.coerce.number().int().min(0).max(DAY_MS).describe(`a whole number of milliseconds from 0 to ${DAY_MS}`);
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

const upstreamUrl = z
  .string()
  .refine((v) => URL.canParse(v) && /^https?:\/\//i.test(v), { message: 'must be an http:// or https:// URL', abort: true })
  .refine((v) => {
    const u = new URL(v);
    return u.search === '' && u.hash === '' && u.username === '' && u.password === '';
  }, 'must not carry a query string, fragment or credentials')
  // The gateway adds /api/v1 itself: a base URL that ends in it would have every call go to /api/v1/api/v1/...
  .refine((v) => !/\/api\/v1\/*$/i.test(new URL(v).pathname), "must be the service's base URL, without /api/v1 (the gateway adds it)")
  // A path that begins with // would be read as a host by a URL parser once /api/v1/... follows it.
  .refine((v) => !new URL(v).pathname.startsWith('//'), 'must not have a path that begins with //')
  // A trailing slash would double up with the /api/v1 prefix.
  .transform((v) => v.replace(/\/+$/, ''));

/** redis:// or rediss:// (TLS), with the password and the database number in the URL (`/2`). Its messages
 * never repeat the value: it holds the password. */
const redisUrl = z
  .string()
  .refine((v) => URL.canParse(v) && /^rediss?:\/\//i.test(v), { message: 'must be a redis:// or rediss:// URL', abort: true })
  .refine((v) => new URL(v).hostname !== '', { message: 'must name a host', abort: true })
  .refine((v) => {
    const u = new URL(v);
    return u.search === '' && u.hash === '';
  }, 'must not carry a query string or fragment (the database number is the path: redis://host:6379/2)')
  .refine((v) => /^\/?$|^\/\d{1,5}$/.test(new URL(v).pathname), 'must have no path or a database number as its path (redis://host:6379/2)');

/** Where payment claims live when not in REDIS_URL's Redis: postgres:// (durable, PostgreSQL) or a Redis of
 * their own. Its messages never repeat the value: it may hold a password. */
const idempotencyUrl = z
  .string()
  .refine((v) => URL.canParse(v) && /^(postgres|postgresql|rediss?):\/\//i.test(v), { message: 'must be a postgres://, postgresql://, redis:// or rediss:// URL', abort: true })
  .refine((v) => new URL(v).hostname !== '' || /^postgres/i.test(v), { message: 'must name a host', abort: true });

/** The risks an operator accepts for a store that holds claims (Redis, or PostgreSQL's standbys), by name (IDEMPOTENCY_ACCEPT_RISK). */
export const ACCEPTABLE_RISKS = ['no-aof', 'lost-claims', 'unacknowledged', 'async-standby'] as const;
export type AcceptedRisk = (typeof ACCEPTABLE_RISKS)[number];
const acceptedRisks = z
  .string()
  .transform((v) => v.split(',').map((r) => r.trim()).filter((r) => r !== ''))
  .pipe(z.array(z.enum(ACCEPTABLE_RISKS, { error: `must list only ${ACCEPTABLE_RISKS.join(', ')} (separated by commas)` })));

/** LEGACY_SUNSET, LEGACY_DEPRECATED_AT: a day (`2026-12-31`, midnight UTC) or a moment with its offset
 * (`2026-12-31T18:00:00Z`, `2026-12-31T18:00:00+01:00`). */
const legacyDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:\d{2}))?$/, { message: 'must be a date (2026-12-31) or a date and time with its offset (2026-12-31T18:00:00Z)', abort: true })
  .refine((v) => {
    // Date.parse takes 2026-02-30 for 2 March: the day must read back as it was written.
    const day = new Date(`${v.slice(0, 10)}T00:00:00Z`);
    return !Number.isNaN(Date.parse(v)) && !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === v.slice(0, 10);
  }, 'is not a valid date')
  .transform((v) => new Date(v));

/** LEGACY_DOCS_URL: where the v1 documentation is, named in the legacy replies' Link header. */
const docsUrl = z
  .string()
  .refine((v) => URL.canParse(v) && /^https?:\/\//i.test(v), 'must be an http:// or https:// URL')
  // Serialized, so that nothing in it can end the Link header's <...>.
  .transform((v) => new URL(v).href);

/** Prepended to every key the gateway writes, so several gateways (or other applications) can share a Redis. */
const redisKeyPrefix = z.string().regex(/^[\x21-\x7e]{1,64}$/, 'must be 1 to 64 visible ASCII characters');

/** The HMAC secret every replica shares: Idempotency-Keys are stored under HMACs of it, never in clear. */
const gatewaySecret = z.string().min(32, 'must be at least 32 characters');

/** Every setting by its camelCase name (the library's options), each validated once, here. */
export const settingsSchema = z.object({
  upstreamUrl: optionalText.pipe(upstreamUrl.optional()),
  upstreamApiKey: optionalText,
  port: port.default(8080),
  host: optionalText,
  mappingsDir: optionalText,
  accountTimezone: optionalText,
  testimonialsFile: optionalText,
  upstreamTimeoutMs: z.coerce.number().int().min(1).max(DAY_MS).describe(`a whole number of milliseconds from 1 to ${DAY_MS}`).default(10_000),
  cacheTtlMs: millis.default(30_000),
  metricsPort: z.union([z.literal('').transform(() => undefined), port]).describe('a whole number from 0 to 65535 (or empty: no metrics listener)').optional(),
  shutdownTimeoutMs: millis.default(10_000),
  recordFile: optionalText,
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Serve the embedded sandbox's demo data even where a production start would be refused. */
  sandbox: z.enum(['1', 'true', '0', 'false', ''], { error: 'must be 1 or true (on), 0 or false (off)' }).optional().transform((v) => v === '1' || v === 'true'),
  /** `production` refuses to start without UPSTREAM_URL (unless SANDBOX=1). */
  nodeEnv: optionalText,
  /** A reply is cached from its Nth miss (1: the first, as nginx's proxy_cache_min_uses). */
  cacheMinUses: z.coerce.number().int().min(1).max(100).default(1),
  /** Shared state between replicas; unset: in-process stores. */
  redisUrl: optionalText.pipe(redisUrl.optional()),
  redisKeyPrefix: optionalText.pipe(redisKeyPrefix.optional()).transform((v) => v ?? 'lgw:'),
  gatewaySecret: optionalText.pipe(gatewaySecret.optional()),
  /** Payment claims' store when not REDIS_URL's Redis (postgres:// for durable claims). */
  idempotencyUrl: optionalText.pipe(idempotencyUrl.optional()),
  /** Keyless duplicate window in seconds (0: off): long enough for the slowest payment and a caller's retry. */
  paymentDuplicateWindowS: z.coerce.number().int().min(0).max(24 * 3600).default(600),
  /** How long after an unknown outcome's POST a payment missing from v1's list may be "not paid" (seconds). */
  paymentSettleAfterS: z.coerce.number().int().min(1).max(24 * 3600).default(60),
  idempotencyAcceptRisk: optionalText.transform((v) => v ?? '').pipe(acceptedRisks),
  /** When the legacy surface goes away: every legacy reply then carries Sunset, Deprecation and Link. */
  legacySunset: optionalText.pipe(legacyDate.optional()),
  /** Since when the legacy surface is deprecated (Deprecation); default: the gateway's start. */
  legacyDeprecatedAt: optionalText.pipe(legacyDate.optional()),
  /** The v1 documentation, linked from every legacy reply (rel="deprecation" and rel="sunset"). */
  legacyDocsUrl: optionalText.pipe(docsUrl.optional()),
  /** A candidate mapping set: every translated read is also translated by it, off the reply's path, and compared. */
  shadowMappingsDir: optionalText,
  /** Where a sample of the shadow comparisons that differ is appended (JSONL); unset: none written. */
  shadowDiffFile: optionalText,
  /** Who each integration is (YAML: name, owner, notify, key fingerprints); unset: every key unnamed. */
  integrationsFile: optionalText,
  /** Scheduled brownout windows (YAML); unset: none. */
  brownoutsFile: optionalText,
  /** Where the migration guides are published (one `<integration>.html` each), named in brownout refusals and notices. */
  guidesUrl: optionalText.pipe(docsUrl.optional()),
  /** An integration that has not called for this many days gets the `quiet` notice. */
  quietDays: z.coerce.number().int().min(1).max(3650).default(30),
});

type SettingName = keyof z.input<typeof settingsSchema>;

/** The environment variable of each setting. */
export const ENVIRONMENT_NAMES: Readonly<Record<SettingName, string>> = {
  upstreamUrl: 'UPSTREAM_URL',
  upstreamApiKey: 'UPSTREAM_API_KEY',
  port: 'PORT',
  host: 'HOST',
  mappingsDir: 'MAPPINGS_DIR',
  accountTimezone: 'ACCOUNT_TIMEZONE',
  testimonialsFile: 'TESTIMONIALS_FILE',
  upstreamTimeoutMs: 'UPSTREAM_TIMEOUT_MS',
  cacheTtlMs: 'CACHE_TTL_MS',
  metricsPort: 'METRICS_PORT',
  shutdownTimeoutMs: 'SHUTDOWN_TIMEOUT_MS',
  recordFile: 'RECORD_FILE',
  logLevel: 'LOG_LEVEL',
  sandbox: 'SANDBOX',
  nodeEnv: 'NODE_ENV',
  cacheMinUses: 'CACHE_MIN_USES',
  redisUrl: 'REDIS_URL',
  redisKeyPrefix: 'REDIS_KEY_PREFIX',
  gatewaySecret: 'GATEWAY_SECRET',
  idempotencyUrl: 'IDEMPOTENCY_URL',
  paymentDuplicateWindowS: 'PAYMENT_DUPLICATE_WINDOW_S',
  paymentSettleAfterS: 'PAYMENT_SETTLE_AFTER_S',
  idempotencyAcceptRisk: 'IDEMPOTENCY_ACCEPT_RISK',
  legacySunset: 'LEGACY_SUNSET',
  legacyDeprecatedAt: 'LEGACY_DEPRECATED_AT',
  legacyDocsUrl: 'LEGACY_DOCS_URL',
  shadowMappingsDir: 'SHADOW_MAPPINGS_DIR',
  shadowDiffFile: 'SHADOW_DIFF_FILE',
  integrationsFile: 'INTEGRATIONS_FILE',
  brownoutsFile: 'BROWNOUTS_FILE',
  guidesUrl: 'GUIDES_URL',
  quietDays: 'QUIET_DAYS',
};


export interface GatewayConfig {
  /** Base URL of the v1 service, without trailing slash; undefined = the embedded sandbox. */
  upstreamUrl: string | undefined;
  upstreamApiKey: string | undefined;
  port: number;
  host: string;
  /** True when HOST was set by the operator rather than defaulted. */
  hostExplicit: boolean;
  mappingsDir: string;
  accountTimezone: string | undefined;
  testimonialsFile: string | undefined;
  upstreamTimeoutMs: number;
  cacheTtlMs: number;
  metricsPort: number | undefined;
  shutdownTimeoutMs: number;
  recordFile: string | undefined;
  logLevel: z.infer<typeof settingsSchema>['logLevel'];
  /** SANDBOX=1: the embedded sandbox was asked for explicitly. */
  sandbox: boolean;
  /** NODE_ENV=production. */
  production: boolean;
  cacheMinUses: number;
  /** REDIS_URL: Idempotency-Keys and the read cache's second tier are shared through it. Holds the
   * password: never log it (maskRedisUrl). */
  redisUrl: string | undefined;
  /** REDIS_KEY_PREFIX (default `lgw:`). */
  redisKeyPrefix: string;
  /** GATEWAY_SECRET: required with REDIS_URL or IDEMPOTENCY_URL; never logged. */
  gatewaySecret: string | undefined;
  /** IDEMPOTENCY_URL: where payment claims live (postgres:// or redis://); unset: REDIS_URL's Redis, else
   * this process. May hold a password: never log it. */
  idempotencyUrl: string | undefined;
  /** PAYMENT_DUPLICATE_WINDOW_S: how long a keyless payment's claim stands (seconds; 0 = off). */
  paymentDuplicateWindowS: number;
  /** PAYMENT_SETTLE_AFTER_S: how long after an unknown outcome's POST a payment v1's list does not hold may
   * be settled "not paid" (seconds; default 60). */
  paymentSettleAfterS: number;
  /** IDEMPOTENCY_ACCEPT_RISK: what an operator accepts of a Redis that cannot prove it keeps claims. */
  idempotencyAcceptRisk: readonly AcceptedRisk[];
  /** LEGACY_SUNSET: the legacy replies' Sunset; unset: no Sunset, Deprecation or Link header. */
  legacySunset: Date | undefined;
  /** LEGACY_DEPRECATED_AT: the legacy replies' Deprecation; unset: the gateway's start. */
  legacyDeprecatedAt: Date | undefined;
  /** LEGACY_DOCS_URL: the legacy replies' Link (rel="deprecation", rel="sunset"). */
  legacyDocsUrl: string | undefined;
  /** SHADOW_MAPPINGS_DIR (resolved): the candidate mappings every translated read is compared with. */
  shadowMappingsDir?: string | undefined;
  /** SHADOW_DIFF_FILE (resolved): a sample of the differing comparisons, JSONL. */
  shadowDiffFile?: string | undefined;
  /** INTEGRATIONS_FILE (resolved): who each key fingerprint belongs to; reloaded on SIGHUP. */
  integrationsFile?: string | undefined;
  /** BROWNOUTS_FILE (resolved): the scheduled brownout windows; reloaded on SIGHUP. */
  brownoutsFile?: string | undefined;
  /** GUIDES_URL: where the migration guides are published (`<integration>.html` under it). */
  guidesUrl?: string | undefined;
  /** QUIET_DAYS: days without a call after which an integration's owner gets the `quiet` notice (default 30). */
  quietDays?: number;
}

/** The other LEGACY_* settings mean nothing without LEGACY_SUNSET; the deprecation comes before the sunset.
 * The problem as one line, or undefined; `names` are how the caller calls the settings. */
export function sunsetProblem(
  s: { legacySunset?: Date | undefined; legacyDeprecatedAt?: Date | undefined; legacyDocsUrl?: string | undefined },
  names = { sunset: 'LEGACY_SUNSET', deprecatedAt: 'LEGACY_DEPRECATED_AT', docsUrl: 'LEGACY_DOCS_URL' },
): string | undefined {
  if (s.legacySunset === undefined) {
    if (s.legacyDeprecatedAt !== undefined) return `${names.deprecatedAt} is allowed only with ${names.sunset}`;
    if (s.legacyDocsUrl !== undefined) return `${names.docsUrl} is allowed only with ${names.sunset}`;
    return undefined;
  }
  if (s.legacyDeprecatedAt !== undefined && s.legacyDeprecatedAt > s.legacySunset) return `${names.deprecatedAt} must not be after ${names.sunset}`;
  return undefined;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Whether a listening address is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Shared state needs the secret every replica shares: a per-process one would make each replica's
 * Idempotency-Keys unreadable to the others. The problem as one line, or undefined; `names` are how the
 * caller calls the two settings. */
export function missingSecretWithRedis(redisUrl: string | undefined, secret: string | undefined, names = { url: 'REDIS_URL', secret: 'GATEWAY_SECRET' }): string | undefined {
  if (redisUrl === undefined || secret !== undefined) return undefined;
  return `${names.secret} is required when ${names.url} is set (the HMAC secret every replica shares, at least 32 characters)`;
}

/** REDIS_URL (or IDEMPOTENCY_URL) as it may be printed: the password replaced by `***`. */
export function maskRedisUrl(url: string): string {
  if (!URL.canParse(url)) return 'redis://(unparseable)';
  const u = new URL(url);
  if (u.password !== '') u.password = '***';
  return u.toString();
}

/** The upstream's address as it may be printed (the start line): its origin and path, never credentials,
 * query or fragment. */
export function upstreamAddress(url: string): string {
  if (!URL.canParse(url)) return '(unparseable)';
  const u = new URL(url);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** The settings whose values are never repeated in a message: they hold, or may hold, a secret. */
export const SECRET_SETTINGS: ReadonlySet<SettingName> = new Set<SettingName>(['upstreamUrl', 'upstreamApiKey', 'redisUrl', 'gatewaySecret', 'idempotencyUrl']);

/** One sentence per bad setting (issue-text.ts), by the name the caller gives it; the value received is
 * repeated only for a setting that cannot hold a secret. */
export function settingProblems(
  issues: readonly z.core.$ZodIssue[],
  given: Readonly<Record<string, unknown>>,
  nameOf: (setting: SettingName) => string,
): string[] {
  return issues.map((issue) => {
    const setting = String(issue.path[0] ?? '') as SettingName;
    const value = SECRET_SETTINGS.has(setting) || given[setting] === undefined ? undefined : { value: given[setting] };
    return issueSentence(ENVIRONMENT_NAMES[setting] === undefined ? issue.path.join('.') : nameOf(setting), issue, value);
  });
}

/** Parses the environment; throws ConfigError naming each bad variable, in a sentence that says what is
 * allowed (its value repeated only where it cannot be a secret). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const names = Object.entries(ENVIRONMENT_NAMES) as Array<[SettingName, string]>;
  const given = Object.fromEntries(names.map(([key, name]) => [key, env[name]]));
  const parsed = settingsSchema.safeParse(given, { error: expectation });
  const present = (name: string) => (env[name] ?? '').trim() !== '';
  // Judged on what was given, so that it is reported beside any other bad setting.
  const noSecret =
    missingSecretWithRedis(present('REDIS_URL') ? 'set' : undefined, present('GATEWAY_SECRET') ? 'set' : undefined) ??
    missingSecretWithRedis(present('IDEMPOTENCY_URL') ? 'set' : undefined, present('GATEWAY_SECRET') ? 'set' : undefined, { url: 'IDEMPOTENCY_URL', secret: 'GATEWAY_SECRET' });
  const sunset = parsed.success ? sunsetProblem(parsed.data) : undefined;
  if (!parsed.success || noSecret !== undefined || sunset !== undefined) {
    // One line per bad setting.
    const lines = settingProblems(parsed.error?.issues ?? [], given, (setting) => ENVIRONMENT_NAMES[setting]);
    throw new ConfigError([...new Set([...lines, ...[noSecret, sunset].filter((p) => p !== undefined)])].join('\n'));
  }
  const { nodeEnv, ...e } = parsed.data;
  return {
    ...e,
    production: nodeEnv === 'production',
    upstreamUrl: e.upstreamUrl,
    metricsPort: e.metricsPort,
    host: e.host ?? '127.0.0.1',
    hostExplicit: e.host !== undefined,
    mappingsDir: e.mappingsDir ? path.resolve(e.mappingsDir) : SHIPPED_MAPPINGS_DIR,
    testimonialsFile: e.testimonialsFile ? path.resolve(e.testimonialsFile) : undefined,
    redisUrl: e.redisUrl,
    gatewaySecret: e.gatewaySecret,
    idempotencyUrl: e.idempotencyUrl,
    legacySunset: e.legacySunset,
    legacyDeprecatedAt: e.legacyDeprecatedAt,
    legacyDocsUrl: e.legacyDocsUrl,
    shadowMappingsDir: e.shadowMappingsDir ? path.resolve(e.shadowMappingsDir) : undefined,
    shadowDiffFile: e.shadowDiffFile ? path.resolve(e.shadowDiffFile) : undefined,
    integrationsFile: e.integrationsFile ? path.resolve(e.integrationsFile) : undefined,
    brownoutsFile: e.brownoutsFile ? path.resolve(e.brownoutsFile) : undefined,
  };
}
