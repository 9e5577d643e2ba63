// A receiver of the gateway's notices for a test: a node:http server on a loopback port that keeps every
// POST it gets (path, headers, body) and answers each with the next status of its list (200 once the list is
// empty). A test awaits the nth notice instead of sleeping.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedNotice {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The status it was answered with. */
  answered: number;
}

export interface NoticeReceiver {
  /** http://127.0.0.1:PORT */
  url: string;
  received: ReceivedNotice[];
  /** The statuses the next notices are answered with, in order. */
  answers: number[];
  /** Resolves once `count` notices have arrived (in all). */
  arrived(count: number): Promise<ReceivedNotice[]>;
  close(): Promise<void>;
}

export async function startNoticeReceiver(): Promise<NoticeReceiver> {
  const received: ReceivedNotice[] = [];
  const answers: number[] = [];
  const waiting: Array<{ count: number; resolve: (all: ReceivedNotice[]) => void }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answered = answers.shift() ?? 200;
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered < 300 ? 'ok' : 'no');
      for (const w of waiting.filter((w) => received.length >= w.count)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve([...received]);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answers,
    arrived: (count) => (received.length >= count ? Promise.resolve([...received]) : new Promise((resolve) => waiting.push({ count, resolve }))),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
