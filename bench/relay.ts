// Bench floor: the relay (bench/relay-server.ts), a node:http server and a keep-alive node:http agent to v1
// that sends v1's page for the legacy request on unchanged, with no parse and no translation. Its reply is
// v1's bytes, not the legacy reply (1.4x as many with the bench's fake v1: 455 against 317 kB at 1000
// records): not a same-bytes baseline.
// Prints `READY <port>`.
import type { AddressInfo } from 'node:net';
import { argValue, stopAfter } from './child-args.js';
import { createRelay } from './relay-server.js';

const server = createRelay(new URL(argValue('--upstream', 'http://127.0.0.1:8081')));
server.listen(Number(argValue('--port', '0')), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
stopAfter(server);
