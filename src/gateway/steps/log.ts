// Step: the one log line per request (pino-http), under the request id the edge gave the request.
import type { Logger } from 'pino';
import { createHttpLogger } from '../logging.js';
import type { Step } from './step.js';

export function logStep(logger: Logger): Step {
  const httpLogger = createHttpLogger(logger);
  return {
    name: 'log',
    handle(ctx, next) {
      httpLogger(ctx.req, ctx.res);
      next();
    },
  };
}
