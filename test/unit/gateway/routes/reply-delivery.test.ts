// Whether a reply reached its caller, on a real loopback connection in this process: a reply written while
// the caller is there is delivered; one whose caller closed its connection just before is not, even when
// the close is still unread by the event loop when the reply is to be written (the close is in the kernel,
// not yet seen, as after the process was stopped).
import http, { type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDelivered } from '../../../../src/gateway/routes/reply-delivery.js';

let server: http.Server;
let port: number;
/** The responses of the requests the server received, in order. */
const waiting: Array<(res: ServerResponse) => void> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => waiting.shift()?.(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A caller on a raw socket: its request sent, the server's response once its handler has it. */
async function call(): Promise<{ caller: net.Socket; res: ServerResponse; received: Promise<string> }> {
  const handled = new Promise<ServerResponse>((resolve) => waiting.push(resolve));
  const caller = net.connect(port, '127.0.0.1');
  caller.on('error', () => undefined);
  let text = '';
  // The reply's body is its last part.
  const received = new Promise<string>((resolve) =>
    caller.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.endsWith(PAID)) resolve(text);
    }),
  );
  caller.write('POST /api/payment HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n');
  return { caller, res: await handled, received };
}

const PAID = '{"status":"success","code":12,"response":"payment added (payment id 1)"}';
const reply = (res: ServerResponse) => () => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(PAID.length) });
  res.end(PAID);
};

describe('sendDelivered', () => {
  it('a caller still there: delivered, and it receives the reply', async () => {
    const { caller, res, received } = await call();
    expect(await sendDelivered(res, reply(res))).toBe(true);
    expect(await received).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\n\{"status":"success","code":12,"response":"payment added \(payment id 1\)"\}$/);
    caller.destroy();
  });

  it('a caller that closed its connection before the reply, its close not yet read: not delivered', async () => {
    const { caller, res } = await call();
    caller.destroy();
    // The reply is sent from the check phase that follows: no poll for socket events comes between, so the
    // close is in the kernel and unread, as a close is after a stop (SIGSTOP) for work resumed by a timer.
    const delivered = await new Promise<boolean>((resolve) =>
      setImmediate(() => {
        expect(res.socket?.destroyed).toBe(false);
        resolve(sendDelivered(res, reply(res)));
      }),
    );
    expect(delivered).toBe(false);
  });
});
