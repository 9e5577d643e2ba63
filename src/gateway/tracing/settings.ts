// Whether traces are on, read from the standard OTEL_* variables, and what the gateway hands to the
// tracing it loads. Nothing of OpenTelemetry is imported here: with tracing off (no OTLP endpoint set, the
// usual case) this module and types.ts are all of tracing that is loaded, and `load.ts` never imports the
// SDK. The SDK itself reads the rest of the standard variables (OTEL_TRACES_SAMPLER(_ARG),
// OTEL_EXPORTER_OTLP_(TRACES_)HEADERS and _TIMEOUT, OTEL_BSP_*, OTEL_RESOURCE_ATTRIBUTES).
import { ConfigError } from '../config.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingSettings {
  protocol: OtlpProtocol;
  /** OTEL_SERVICE_NAME, else `legacy-gateway`. */
  serviceName: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/**
 * Tracing is on when an OTLP endpoint is named (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), unless OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is `none`.
 * Throws a ConfigError naming the variable for a protocol this gateway does not export with (grpc).
 */
export function tracingSettings(env: Env): TracingSettings | undefined {
  if (!set(env.OTEL_EXPORTER_OTLP_ENDPOINT) && !set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) return undefined;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase());
  if (exporters.includes('none')) return undefined;
  if (exporters.some((name) => name !== '' && name !== 'otlp')) {
    throw new ConfigError(`OTEL_TRACES_EXPORTER: only otlp (or none) is supported, not ${JSON.stringify(env.OTEL_TRACES_EXPORTER)}`);
  }
  // The signal's own variable wins over the general one (the OpenTelemetry specification's order).
  const variable = set(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const given = env[variable]?.trim() ?? '';
  const protocol = given === '' ? 'http/protobuf' : given;
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new ConfigError(`${variable}: ${JSON.stringify(given)} is not supported; use http/protobuf (the default) or http/json`);
  }
  return { protocol, serviceName: set(env.OTEL_SERVICE_NAME) ? env.OTEL_SERVICE_NAME.trim() : 'legacy-gateway' };
}
