// Feeds one request into the metrics: in flight from arrival, then method, status and duration once the
// reply has finished or the connection closed (whichever comes first, exactly once). The method label is
// asked for at the end, when the route has named the request; it is a route name, never a path.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayMetrics } from './gateway-metrics.js';

export function observeRequest(metrics: GatewayMetrics, _req: IncomingMessage, res: ServerResponse, methodOf: () => string): void {
  const started = process.hrtime.bigint();
  metrics.requestStarted();
  // 'close' follows 'finish' on every response, and also fires when the client goes away first.
  res.once('close', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    metrics.requestFinished(methodOf(), res.statusCode, seconds);
  });
}
