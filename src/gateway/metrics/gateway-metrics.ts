// What the gateway counts, as a small interface the rest of the code calls (server, upstream layers,
// payment flow), so none of them knows about prom-client. `noMetrics` is the do-nothing implementation
// used when METRICS_PORT is unset. Implementations must never put a key or a request value in a label.

/** How one upstream attempt ended (one per HTTP exchange with v1, retries included). */
export type UpstreamOutcome = 'ok' | 'client_error' | 'rate_limited' | 'server_error' | 'timeout' | 'unreachable' | 'bad_reply';

export type CacheEvent = 'hit' | 'miss' | 'stale';

export interface GatewayMetrics {
  /** A request entered the listener (the in-flight gauge goes up). */
  requestStarted(): void;
  /** A request's reply finished or its connection closed. `method` is a route name, never a path. */
  requestFinished(method: string, status: number, seconds: number): void;
  upstreamCall(outcome: UpstreamOutcome): void;
  cacheEvent(event: CacheEvent): void;
  /** One retry of an upstream GET was made. */
  retried(): void;
  /** The payment flow answered with this legacy code (0-12). */
  paymentCompleted(code: number): void;
}

export const noMetrics: GatewayMetrics = {
  requestStarted: () => undefined,
  requestFinished: () => undefined,
  upstreamCall: () => undefined,
  cacheEvent: () => undefined,
  retried: () => undefined,
  paymentCompleted: () => undefined,
};
