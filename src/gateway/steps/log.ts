// Step: the one log line per request (pino-http), and the request id it assigns (X-Request-Id, echoed
// or generated), which the routes send upstream with every v1 call.
import type { Logger } from 'pino';
import { contextOf } from '../edge/request-context.js';
import { createHttpLogger } from '../logging.js';
import type { Step } from './step.js';

export function logStep(logger: Logger): Step {
  const httpLogger = createHttpLogger(logger);
  return {
    name: 'log',
    handle(req, res, next) {
      httpLogger(req, res);
      contextOf(req).requestId = String(req.id);
      next();
    },
  };
}
