// `legacy-gateway routes --format nginx|haproxy`: prints the native front proxy's configuration, generated
// from the mappings (the mapped legacy methods, the payment, calls carrying api_key and the health routes go
// to the gateway; everything else straight to v1). It reads the mappings and the options, never starts a
// server. A bad option or mappings that cannot be loaded: one line on stderr, exit 2 (docs/cli.md: exit codes).
import { SHIPPED_MAPPINGS_DIR, settingsSchema } from '../gateway/config.js';
import { frontRoutes } from '../gateway/front-proxy/front-routes.js';
import { FrontSettingError, parseGateways, parseListen, parseTls, parseUpstream, type FrontSettings } from '../gateway/front-proxy/front-settings.js';
import { renderHaproxy } from '../gateway/front-proxy/haproxy.js';
import { renderNginx } from '../gateway/front-proxy/nginx.js';
import { loadMappingDirectory } from '../gateway/loaders/mapping-files.js';
import { MappingSetError } from '../mapping/mapping-set.js';
import { expectation } from '../shared/issue-text.js';
import { mappingsRefusal } from './command-run.js';
import { z } from 'zod';

export const FRONT_FORMATS = ['nginx', 'haproxy'] as const;

export interface RoutesOptions {
  format?: string;
  listen?: string;
  gateway?: string[];
  upstream?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsProtocols?: string;
  tlsCiphers?: string;
  mappings?: string;
  upstreamTimeoutMs?: string;
}

type Environment = Readonly<Record<string, string | undefined>>;

const setting = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value);

/** --upstream-timeout-ms, else UPSTREAM_TIMEOUT_MS, else 10000: checked as the gateway checks the setting. */
function upstreamTimeoutMs(opts: RoutesOptions, env: Environment): number {
  const [value, name] = opts.upstreamTimeoutMs !== undefined ? [opts.upstreamTimeoutMs, '--upstream-timeout-ms'] : [setting(env.UPSTREAM_TIMEOUT_MS), 'UPSTREAM_TIMEOUT_MS'];
  const parsed = settingsSchema.shape.upstreamTimeoutMs.safeParse(value, { error: expectation });
  if (!parsed.success) throw new FrontSettingError(name, parsed.error.issues[0]!.message, { value });
  return parsed.data;
}

function frontSettings(opts: RoutesOptions, env: Environment): FrontSettings {
  const upstream = opts.upstream ?? setting(env.UPSTREAM_URL);
  if (upstream === undefined) throw new FrontSettingError('--upstream', "is required (or UPSTREAM_URL): v1's base URL");
  return {
    listen: parseListen(opts.listen ?? '8080'),
    gateways: parseGateways(opts.gateway ?? []),
    upstream: parseUpstream(upstream, opts.upstream !== undefined ? '--upstream' : 'UPSTREAM_URL'),
    tls: parseTls(opts.tlsCert, opts.tlsKey, opts.tlsProtocols, opts.tlsCiphers),
  };
}

/** The configuration text; a FrontSettingError or MappingSetError when an option or the mappings are bad. */
export async function routesConfig(opts: RoutesOptions, env: Environment): Promise<string> {
  const parsed = z.enum(FRONT_FORMATS).safeParse(opts.format, { error: expectation });
  if (!parsed.success) throw new FrontSettingError('--format', parsed.error.issues[0]!.message, opts.format === undefined ? undefined : { value: opts.format });
  const format = parsed.data;
  const settings = frontSettings(opts, env);
  const timeoutMs = upstreamTimeoutMs(opts, env);
  const dir = opts.mappings ?? (setting(env.MAPPINGS_DIR) ?? SHIPPED_MAPPINGS_DIR);
  const { reads, payment } = await loadMappingDirectory(dir);
  if (!payment) throw new MappingSetError([{ file: 'payment.yaml', path: '', reason: 'no payment mapping (kind: payment) in the mappings directory' }]);
  const routes = frontRoutes({ reads, payment, upstreamTimeoutMs: timeoutMs });
  return format === 'nginx' ? renderNginx(routes, settings) : renderHaproxy(routes, settings);
}

export async function runRoutes(opts: RoutesOptions, env: Environment = process.env): Promise<void> {
  let text: string;
  try {
    text = await routesConfig(opts, env);
  } catch (err) {
    if (err instanceof FrontSettingError) {
      process.stderr.write(`legacy-gateway routes: ${err.message}\n`);
    } else if (err instanceof MappingSetError) {
      const dir = opts.mappings ?? (setting(env.MAPPINGS_DIR) ?? SHIPPED_MAPPINGS_DIR);
      process.stderr.write(`legacy-gateway routes: ${mappingsRefusal(dir, err)}\n`);
    } else {
      throw err;
    }
    process.exitCode = 2;
    return;
  }
  process.stdout.write(text);
}
