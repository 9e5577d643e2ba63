// The gateway's settings, read once from the environment and validated with zod.
// It must never log or echo a value it reads: UPSTREAM_API_KEY is a secret.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The shipped mappings: `mappings/` at the package root (two levels above src/gateway/ or dist/gateway/). */
export const SHIPPED_MAPPINGS_DIR = path.resolve(here, '..', '..', 'mappings');

const port = z.coerce.number().int().min(0).max(65535);
const millis = z.coerce.number().int().min(0).max(24 * 3600 * 1000);
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

const upstreamUrl = z
  .string()
  .url()
  .refine((v) => /^https?:\/\//i.test(v), 'must be an http:// or https:// URL')
  .refine((v) => {
    const u = new URL(v);
    return u.search === '' && u.hash === '' && u.username === '' && u.password === '';
  }, 'must not carry a query string, fragment or credentials')
  // A trailing slash would double up with the /api/v1 prefix.
  .transform((v) => v.replace(/\/+$/, ''));

const envSchema = z.object({
  UPSTREAM_URL: optionalText.pipe(upstreamUrl.optional()),
  UPSTREAM_API_KEY: optionalText,
  PORT: port.default(8080),
  HOST: optionalText,
  MAPPINGS_DIR: optionalText,
  ACCOUNT_TIMEZONE: optionalText,
  TESTIMONIALS_FILE: optionalText,
  UPSTREAM_TIMEOUT_MS: millis.refine((v) => v > 0, 'must be above 0').default(10_000),
  CACHE_TTL_MS: millis.default(30_000),
  METRICS_PORT: z.union([z.literal('').transform(() => undefined), port]).optional(),
  SHUTDOWN_TIMEOUT_MS: millis.default(10_000),
  RECORD_FILE: optionalText,
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info'),
});

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
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment; throws ConfigError naming each bad variable (never its value). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  return {
    upstreamUrl: e.UPSTREAM_URL,
    upstreamApiKey: e.UPSTREAM_API_KEY,
    port: e.PORT,
    host: e.HOST ?? '127.0.0.1',
    hostExplicit: e.HOST !== undefined,
    mappingsDir: e.MAPPINGS_DIR ? path.resolve(e.MAPPINGS_DIR) : SHIPPED_MAPPINGS_DIR,
    accountTimezone: e.ACCOUNT_TIMEZONE,
    testimonialsFile: e.TESTIMONIALS_FILE ? path.resolve(e.TESTIMONIALS_FILE) : undefined,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    cacheTtlMs: e.CACHE_TTL_MS,
    metricsPort: e.METRICS_PORT,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    recordFile: e.RECORD_FILE,
    logLevel: e.LOG_LEVEL,
  };
}
