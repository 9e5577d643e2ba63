// What the gateway's code sees of tracing: a step that opens the server span of each legacy request, and
// a hook the v1 client calls around each v1 call. Types only: the implementation (otel.ts) and the
// OpenTelemetry SDK are loaded by load.ts only when tracing is configured; with tracing off the client
// holds `undefined` and pays one branch per call.
import type { Step } from '../steps/step.js';

/** One v1 call's client span, ended once with what came of the call. */
export interface V1CallSpan {
  /** `status`: the HTTP status v1 answered with (undefined when none came); `errorCode`: the gateway's
   * stable error code (LGW_*) when the call failed. */
  end(status: number | undefined, errorCode: string | undefined): void;
}

export interface V1CallTracer {
  /** Opens the client span of a v1 call (a child of the request's server span, when the call is made
   * within it) and puts its `traceparent` into `headers`. `path`: the path under /api/v1 (with any query);
   * only its first segment, the resource, names the span. */
  start(method: 'GET' | 'POST', path: string, headers: Record<string, string>): V1CallSpan;
}

export interface GatewayTracing {
  /** The server span of each request: first of the ordered steps. */
  step: Step;
  v1Calls: V1CallTracer;
  /** Sends the spans still buffered, then stops the exporter (after the gateway has closed). */
  close(): Promise<void>;
}
