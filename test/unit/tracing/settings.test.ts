// When tracing is on, from the standard OTEL_* variables (src/gateway/tracing/settings.ts).
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/gateway/config.js';
import { tracingSettings } from '../../../src/gateway/tracing/settings.js';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

describe('tracingSettings', () => {
  it('off without an OTLP endpoint, whatever else is set', () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
  });

  it('on with either endpoint: http/protobuf and legacy-gateway by default', () => {
    expect(tracingSettings(ENDPOINT)).toEqual({ protocol: 'http/protobuf', serviceName: 'legacy-gateway' });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toEqual({ protocol: 'http/protobuf', serviceName: 'legacy-gateway' });
  });

  it('http/json, the service name, the traces protocol winning over the general one', () => {
    expect(tracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'lgw-eu' })).toEqual({ protocol: 'http/json', serviceName: 'lgw-eu' });
    expect(tracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })?.protocol).toBe('http/json');
  });

  it('off when OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is none', () => {
    expect(tracingSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(tracingSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: 'false' })).toBeDefined();
    expect(tracingSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'otlp' })).toBeDefined();
  });

  it('grpc, or another exporter, is refused with one line naming the variable', () => {
    expect(() => tracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(ConfigError);
    expect(() => tracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/^OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported/);
    expect(() => tracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(/^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: /);
    expect(() => tracingSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/^OTEL_TRACES_EXPORTER: /);
  });
});
