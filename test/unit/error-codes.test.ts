// The error code registry itself. That docs/legacy-api.md lists every code once, with its HTTP status, is
// checked with the other reference pages (docs-reference.test.ts).
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, GatewayError } from '../../src/shared/errors.js';

describe('the error code registry', () => {
  it('names each code LGW_ and gives it a legacy HTTP status, or v1\'s own (0)', () => {
    for (const [code, { status, summary }] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^LGW_[A-Z]+(_[A-Z]+)*$/);
      expect(status === 0 || (status >= 400 && status <= 599), code).toBe(true);
      expect(summary.length, code).toBeGreaterThan(0);
    }
  });

  it("gives an error its code's status unless the error brings its own", () => {
    expect(new GatewayError('LGW_NOT_FOUND', 'client not found').status).toBe(ERROR_CODES.LGW_NOT_FOUND.status);
    expect(new GatewayError('LGW_UPSTREAM_ERROR', 'refused', { status: 429 }).status).toBe(429);
  });
});
