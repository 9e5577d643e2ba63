// Loads tracing when the OTEL_* variables configure it (settings.ts), and only then: the OpenTelemetry
// SDK and its exporter are imported here, dynamically, so a gateway without tracing loads none of them.
import type { Logger } from 'pino';
import { tracingSettings } from './settings.js';
import type { GatewayTracing } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The gateway's tracing, or undefined when the environment configures none. Throws a ConfigError for a
 * setting it cannot honour (grpc). */
export async function loadTracing(env: Env, logger: Logger): Promise<GatewayTracing | undefined> {
  const settings = tracingSettings(env);
  if (!settings) return undefined;
  const { createTracing } = await import('./otel.js');
  const tracing = createTracing(settings, logger);
  logger.info({ protocol: settings.protocol, serviceName: settings.serviceName }, 'tracing: spans are exported with OTLP');
  return tracing;
}
