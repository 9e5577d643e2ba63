// The passthrough's dispatch handler against a recording response and controller: what it writes, when it
// pauses and resumes the upstream, and what it does when either side fails or goes away.
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { ReplyRelay } from '../../../../src/gateway/routes/reply-relay.js';

class RecordingResponse extends EventEmitter {
  calls: string[] = [];
  headersSent = false;
  destroyed = false;
  /** What write() answers: false stands for a full socket buffer. */
  accepts = true;
  writeHead(status: number, headers: Record<string, string | string[]>): this {
    this.calls.push(`writeHead ${status} ${JSON.stringify(headers)}`);
    this.headersSent = true;
    return this;
  }
  write(chunk: Buffer): boolean {
    this.calls.push(`write ${chunk.toString()}`);
    return this.accepts;
  }
  end(): this {
    this.calls.push('end');
    return this;
  }
  destroy(): this {
    this.calls.push('destroy');
    this.destroyed = true;
    return this;
  }
}

class RecordingController implements Dispatcher.DispatchController {
  calls: string[] = [];
  aborted = false;
  paused = false;
  reason: Error | null = null;
  abort(reason: Error): void {
    this.calls.push(`abort: ${reason.message}`);
    this.aborted = true;
    this.reason = reason;
  }
  pause(): void {
    this.calls.push('pause');
    this.paused = true;
  }
  resume(): void {
    this.calls.push('resume');
    this.paused = false;
  }
}

function setup() {
  const res = new RecordingResponse();
  const controller = new RecordingController();
  const failures: string[] = [];
  const relay = new ReplyRelay(res as unknown as ServerResponse, {
    replyStarted: (status: number, headers: IncomingHttpHeaders) => ({ 'x-status': String(status), 'content-type': String(headers['content-type']) }),
    failedBeforeReply: (err) => failures.push(err.message),
  });
  relay.onRequestStart(controller);
  return { res, controller, failures, relay };
}

describe('ReplyRelay', () => {
  it('writes the status, the headers it is given back, each chunk, then ends', () => {
    const { res, controller, relay, failures } = setup();
    relay.onResponseStart(controller, 200, { 'content-type': 'application/json' });
    relay.onResponseData(controller, Buffer.from('{"a":'));
    relay.onResponseData(controller, Buffer.from('1}'));
    relay.onResponseEnd();
    res.emit('close');
    expect(res.calls).toEqual(['writeHead 200 {"x-status":"200","content-type":"application/json"}', 'write {"a":', 'write 1}', 'end']);
    expect(controller.calls).toEqual([]);
    expect(failures).toEqual([]);
  });

  it('pauses the upstream when the response buffer is full and resumes it on drain', () => {
    const { res, controller, relay } = setup();
    relay.onResponseStart(controller, 200, {});
    res.accepts = false;
    relay.onResponseData(controller, Buffer.from('one'));
    expect(controller.calls).toEqual(['pause']);
    res.accepts = true;
    res.emit('drain');
    relay.onResponseData(controller, Buffer.from('two'));
    expect(controller.calls).toEqual(['pause', 'resume']);
  });

  it('ignores a 1xx and relays the final reply', () => {
    const { res, controller, relay } = setup();
    relay.onResponseStart(controller, 103, { link: '</a.css>' });
    relay.onResponseStart(controller, 204, {});
    relay.onResponseEnd();
    expect(res.calls).toEqual(['writeHead 204 {"x-status":"204","content-type":"undefined"}', 'end']);
  });

  it('hands a failure before the reply back, so the caller gets an answer', () => {
    const { res, controller, relay, failures } = setup();
    relay.onResponseError(controller, new Error('connect ECONNREFUSED'));
    expect(failures).toEqual(['connect ECONNREFUSED']);
    expect(res.calls).toEqual([]);
  });

  it('cuts the connection on a failure once the reply has started (nothing legacy-shaped can follow)', () => {
    const { res, controller, relay, failures } = setup();
    relay.onResponseStart(controller, 200, {});
    relay.onResponseData(controller, Buffer.from('part'));
    relay.onResponseError(controller, new Error('other side closed'));
    expect(res.calls.at(-1)).toBe('destroy');
    expect(failures).toEqual([]);
  });

  it('aborts the upstream exchange when the caller leaves mid-reply', () => {
    const { res, controller, relay } = setup();
    relay.onResponseStart(controller, 200, {});
    res.emit('close');
    expect(controller.calls).toEqual(['abort: the caller closed the connection']);
  });

  it('lets a request already sent run on when the caller leaves before the reply', () => {
    const { res, controller } = setup();
    res.emit('close');
    expect(controller.calls).toEqual([]);
  });
});
