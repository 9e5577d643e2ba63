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
  .refine((v) => URL.canParse(v) && /^https?:\/\//i.test(v), { message: 'must be an http:// or https:// URL', abort: true })
  .refine((v) => {
    const u = new URL(v);
    return u.search === '' && u.hash === '' && u.username === '' && u.password === '';
  }, 'must not carry a query string, fragment or credentials')
  // A trailing slash would double up with the /api/v1 prefix.
  .transform((v) => v.replace(/\/+$/, ''));

/** Every setting by its camelCase name (the library's options), each validated once, here. */
export const settingsSchema = z.object({
  upstreamUrl: optionalText.pipe(upstreamUrl.optional()),
  upstreamApiKey: optionalText,
  port: port.default(8080),
  host: optionalText,
  mappingsDir: optionalText,
  accountTimezone: optionalText,
  testimonialsFile: optionalText,
  upstreamTimeoutMs: millis.refine((v) => v > 0, 'must be above 0').default(10_000),
  cacheTtlMs: millis.default(30_000),
  metricsPort: z.union([z.literal('').transform(() => undefined), port]).optional(),
  shutdownTimeoutMs: millis.default(10_000),
  recordFile: optionalText,
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Serve the embedded sandbox's demo data even where a production start would be refused. */
  sandbox: z.enum(['1', 'true', '0', 'false', '']).optional().transform((v) => v === '1' || v === 'true'),
  /** `production` refuses to start without UPSTREAM_URL (unless SANDBOX=1). */
  nodeEnv: optionalText,
  /** A reply is cached from its Nth miss (1: the first, as nginx's proxy_cache_min_uses). */
  cacheMinUses: z.coerce.number().int().min(1).max(100).default(1),
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
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Whether a listening address is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment; throws ConfigError naming each bad variable (never its value). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const names = Object.entries(ENVIRONMENT_NAMES) as Array<[SettingName, string]>;
  const parsed = settingsSchema.safeParse(Object.fromEntries(names.map(([key, name]) => [key, env[name]])));
  if (!parsed.success) {
    // One line per bad setting: its variable and the reason, never its value.
    const lines = parsed.error.issues.map((i) => `${ENVIRONMENT_NAMES[i.path[0] as SettingName] ?? i.path.join('.')}: ${i.message}`);
    throw new ConfigError([...new Set(lines)].join('\n'));
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
  };
}
