// Step: the request guard. A request whose target, headers or declared body break the limits of its
// route is answered here with a legacy-shaped 4xx, and reaches neither its route nor the upstream.
import { sendLegacyError } from '../edge/error-reply.js';
import { requestProblem } from '../edge/request-guard.js';
import type { Step } from './step.js';

export const guardStep: Step = {
  name: 'guard',
  handle(ctx, next) {
    const problem = requestProblem(ctx.req, ctx.route.bodyLimit);
    if (!problem) return next();
    ctx.label ??= 'rejected';
    sendLegacyError(ctx, problem);
  },
};
