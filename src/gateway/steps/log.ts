// Step: the one log line per request (request-line.ts), under the request id the edge gave the request.
import type { Logger } from 'pino';
import { createRequestLine } from '../request-line.js';
import type { Step } from './step.js';

export function logStep(logger: Logger): Step {
  const requestLine = createRequestLine(logger);
  return {
    name: 'log',
    handle(ctx, next) {
      requestLine(ctx);
      next();
    },
  };
}
