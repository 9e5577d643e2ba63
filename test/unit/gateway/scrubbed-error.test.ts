// An error written on a request's log line is scrubbed of the request's secrets (message, causes, stack,
// own fields) and still written as an error of its class.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, scrubbedError } from '../../../src/gateway/logging.js';
import { GatewayError } from '../../../src/shared/errors.js';
import { SecretScrubber } from '../../../src/shared/redact.js';

function logged(value: unknown): Record<string, unknown> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  createLogger('info', sink).error({ err: value }, 'fault');
  return (JSON.parse(lines[0] as string) as { err: Record<string, unknown> }).err;
}

describe('scrubbedError', () => {
  const scrubber = new SecretScrubber().add('caller-key-123', 'tok_secret_9');

  it('keeps the class, the code and the text around the secrets', () => {
    const cause = new Error('v1 saw token tok_secret_9');
    const err = new GatewayError('LGW_UPSTREAM_ERROR', 'key caller-key-123 refused', { status: 422, upstreamCode: 'bad tok_secret_9', cause });
    const line = logged(scrubbedError(err, scrubber));
    expect(JSON.stringify(line)).not.toMatch(/caller-key-123|tok_secret_9/);
    expect(line).toMatchObject({
      type: 'GatewayError',
      message: 'key [REDACTED] refused: v1 saw token [REDACTED]',
      code: 'LGW_UPSTREAM_ERROR',
      status: 422,
      upstreamCode: 'bad [REDACTED]',
    });
    expect(line.stack).toMatch(/^GatewayError: key \[REDACTED\] refused/);
  });

  it('scrubs what is thrown that is not an error', () => {
    expect(scrubbedError('failed for caller-key-123', scrubber)).toBe('failed for [REDACTED]');
    expect(scrubbedError({ note: 'tok_secret_9' }, scrubber)).toEqual({ note: '[REDACTED]' });
  });
});
