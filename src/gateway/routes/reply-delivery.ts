// Whether a reply reached its caller: what decides if a keyless payment's claim holds (a repeat replays its
// reply) or is released (an identical payment after it is paid). The kernel taking the bytes is no proof:
// node marks a reply written on a connection the caller already closed as finished too. So the connection
// is looked at before the reply is written, once the events already waiting have been read: a caller that
// closed its connection while this process was not running (stopped, its event loop busy), whose close is
// still unread when the payment's own work resumes (from a timer, or from v1's answer read first), is
// then seen as gone, and its reply is not taken as delivered.
import type { ServerResponse } from 'node:http';

/** Resolves once the events already waiting are handled: setImmediate runs after the poll phase, which
 * reads every socket event the kernel holds. */
const afterPendingEvents = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Writes a reply with `send` and resolves whether it reached its caller: the connection was still open
 * when it was written (the caller had neither closed it nor ended its side), and the reply was written out
 * in full ('finish') before the connection closed. */
export async function sendDelivered(res: ServerResponse, send: () => void): Promise<boolean> {
  await afterPendingEvents();
  const socket = res.socket;
  if (res.destroyed || socket === null || socket.destroyed || socket.readableEnded) {
    send();
    return false;
  }
  const delivered = new Promise<boolean>((resolve) => {
    res.once('finish', () => resolve(true));
    res.once('close', () => resolve(false));
  });
  send();
  return delivered;
}
