// The gateway's traces with OpenTelemetry, loaded only when tracing is configured (load.ts). Spans are the
// gateway's own, no instrumentation patches a module: a SERVER span per legacy request, continuing the
// caller's W3C `traceparent`, and a CLIENT span per v1 call, whose `traceparent` goes to v1. The tracer
// provider is this gateway's, never registered as the global one (a host's own tracing stays its own);
// the only global it sets is the AsyncLocalStorage context manager, when none is registered yet, so that
// the v1 calls a request makes, however deep in its async work, find its span as the active one.
//
// Attributes come from a closed set and never from a request's values: http.request.method (a known
// method or _OTHER), http.response.status_code, error.type (the gateway's LGW_* code), the route label
// (a mapped legacy method, `payment`, `passthrough`, `healthz`, `readyz` or `rejected`, never a path) and
// the payment's legacy code. No key, token, e-mail, query or path value is ever put on a span.
import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  diag,
  DiagLogLevel,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Logger } from 'pino';
import type { RequestContext } from '../edge/request-context.js';
import type { Next } from '../steps/step.js';
import type { Step } from '../steps/step.js';
import type { TracingSettings } from './settings.js';
import type { GatewayTracing, V1CallSpan, V1CallTracer } from './types.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE']);

/** The method as semantic conventions want it: a known one, else `_OTHER` (never the caller's text). */
const knownMethod = (method: string | undefined): string => (method !== undefined && METHODS.has(method) ? method : '_OTHER');

export const ROUTE_ATTRIBUTE = 'legacy_gateway.route';
export const PAYMENT_CODE_ATTRIBUTE = 'legacy_gateway.payment_code';

const propagator = new W3CTraceContextPropagator();

function serverSpanStep(tracer: Tracer): Step {
  return {
    name: 'trace',
    handle(request: RequestContext, next: Next) {
      const { req, res } = request;
      const method = knownMethod(req.method);
      const parent = propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
      const span = tracer.startSpan(
        `${method} ${request.route.label}`,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, [ROUTE_ATTRIBUTE]: request.route.label } },
        parent,
      );
      // The request's after-work: its response closed, the reply sent or the caller gone before it was.
      request.afterWork.push(() => {
        // The guard may have refused the request (`rejected`) instead of its route serving it.
        const label = request.label ?? request.route.label;
        const attributes: Attributes = { [ROUTE_ATTRIBUTE]: label };
        if (res.headersSent) attributes['http.response.status_code'] = res.statusCode;
        if (request.paymentCode !== undefined) attributes[PAYMENT_CODE_ATTRIBUTE] = request.paymentCode;
        if (request.errorCode !== undefined) attributes['error.type'] = request.errorCode;
        span.setAttributes(attributes);
        span.updateName(`${method} ${label}`);
        if (!res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR, message: 'the reply was not sent in full' });
        else if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      // Everything the request does from here (steps, route, its v1 calls) runs within its span.
      context.with(trace.setSpan(parent, span), next);
    },
  };
}

/** `/clients/12?x=y` -> `clients`: the resource, never an id or a query. */
function resourceOf(path: string): string {
  const match = /^\/([a-z][a-z0-9-]*)/.exec(path);
  return match?.[1] ?? 'unknown';
}

function v1CallTracer(tracer: Tracer): V1CallTracer {
  return {
    start(method, path, headers): V1CallSpan {
      const span = tracer.startSpan(`${method} ${resourceOf(path)}`, { kind: SpanKind.CLIENT, attributes: { 'http.request.method': method } });
      propagator.inject(trace.setSpan(context.active(), span), headers, defaultTextMapSetter);
      return {
        end(status, errorCode) {
          if (status !== undefined) span.setAttribute('http.response.status_code', status);
          if (errorCode !== undefined) span.setAttribute('error.type', errorCode);
          if (errorCode !== undefined || (status !== undefined && status >= 400)) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
  };
}

/** The SDK's own problems (an export that failed): a warning, at most one a minute. */
function diagnostics(logger: Logger): void {
  let last = 0;
  const warn = (message: string): void => {
    const now = Date.now();
    if (now - last < 60_000) return;
    last = now;
    logger.warn({ otel: message.slice(0, 300) }, 'tracing: OpenTelemetry reported a problem (more are not logged for a minute)');
  };
  const ignore = (): void => undefined;
  diag.setLogger({ error: warn, warn, info: ignore, debug: ignore, verbose: ignore }, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
}

export function createTracing(settings: TracingSettings, logger: Logger): GatewayTracing {
  diagnostics(logger);
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  // A context manager already registered (a host's, another gateway's) serves as well.
  if (!context.setGlobalContextManager(manager)) manager.disable();
  const exporter = settings.protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter();
  // service.name: OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES's, else `legacy-gateway` (envDetector
  // reads both variables, the first winning; what it detects wins over the default).
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': settings.serviceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  const tracer = provider.getTracer('legacy-gateway');
  return {
    step: serverSpanStep(tracer),
    v1Calls: v1CallTracer(tracer),
    async close() {
      try {
        await provider.forceFlush();
      } finally {
        await provider.shutdown();
      }
    },
  };
}
