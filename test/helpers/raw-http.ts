// One HTTP request written byte for byte on a connection of its own (fetch would normalise what a test
// means to send: two Host headers, dot segments), read until the server closes it (Connection: close).
import net from 'node:net';

export function rawRequest(port: number, text: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const end = reply.indexOf('\r\n\r\n');
      resolve({ status: Number(reply.slice(9, 12)), body: end < 0 ? '' : reply.slice(end + 4) });
    });
    socket.write(text, 'latin1');
  });
}
