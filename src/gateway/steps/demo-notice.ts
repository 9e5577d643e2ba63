// Step: in sandbox mode (the serve command composed the embedded v1 sandbox in), every reply says so in a
// header, so nobody mistakes demo data for the real service. First in the list: refusals carry it too.
import type { Step } from './step.js';

export const DEMO_HEADER = 'x-legacy-gateway-sandbox';
export const DEMO_NOTICE = 'demo data from the embedded v1 sandbox, not the real service';

export const demoNoticeStep: Step = {
  name: 'demo notice',
  handle({ res }, next) {
    res.setHeader(DEMO_HEADER, DEMO_NOTICE);
    next();
  },
};
