// Before the same-bytes rows run: each baseline that claims the gateway's bytes (the hand-written node:http
// reshaper, the nginx + Lua reshaper) is asked for /api/clients/0/N at every size beside a gateway with the
// cache off, and its body (Buffer.equals) and content-type compared with the gateway's. Only a baseline
// that answers the same at a size is measured at that size; any difference is said in one line. The relay
// (bench/relay.ts) is the floor, not a same-bytes baseline: it sends v1's page on unchanged, so it is left out
// of that check and checked instead to answer v1's own bytes, its reply's size printed beside the gateway's.
import path from 'node:path';
import { CACHE_OFF, launchGateway, type GatewayLauncher } from './gateway-launch.js';
import { findNginxLua, startNginxLua, type NginxLua } from './nginx-lua-reshaper.js';
import { startChild, type BenchProcess } from './processes.js';
import { clientsPath } from './target-names.js';

export const SAME_BYTES_SIZES = [10, 100, 1000] as const;

/** The baselines and the sizes at which each answered the gateway's bytes. */
export interface SameBytes {
  handwritten: Set<number>;
  nginxLua: NginxLua | undefined;
  nginxLuaSizes: Set<number>;
  /** The sizes at which the relay answered v1's page byte for byte (it is measured there). */
  relay: Set<number>;
}

interface Reply {
  status: number;
  contentType: string;
  body: Buffer;
}

let checkKey = 0;

async function get(url: string): Promise<Reply> {
  const res = await fetch(url, { headers: { 'x-api-key': `bench-same-bytes-${checkKey++}` } });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

/** Where `b` differs from `a` (by default the gateway's reply), or undefined when it is the same. */
function difference(a: Reply, b: Reply, whose = "the gateway's"): string | undefined {
  if (a.status !== b.status) return `status ${b.status}, ${whose} ${a.status}`;
  if (a.contentType !== b.contentType) return `content-type "${b.contentType}", ${whose} "${a.contentType}"`;
  if (a.body.equals(b.body)) return undefined;
  let i = 0;
  while (i < a.body.length && i < b.body.length && a.body[i] === b.body[i]) i++;
  const at = (buf: Buffer) => JSON.stringify(buf.subarray(Math.max(0, i - 20), i + 40).toString('utf8'));
  return `${b.body.length} bytes against ${a.body.length}, first difference at byte ${i}: ${at(b.body)}, ${whose} ${at(a.body)}`;
}

/** The sizes at which `baseline` answers as `gateway` does; one line for each size where it does not. */
async function equalSizes(name: string, gateway: BenchProcess, baseline: BenchProcess): Promise<Set<number>> {
  const equal = new Set<number>();
  for (const records of SAME_BYTES_SIZES) {
    const [a, b] = [await get(`${gateway.url}${clientsPath(records)}`), await get(`${baseline.url}${clientsPath(records)}`)];
    const diff = a.status === 200 ? difference(a, b) : `the gateway answered ${a.status}`;
    if (diff === undefined) equal.add(records);
    else console.log(`${name} ${records}: not measured, its reply differs from the gateway's (${diff})`);
  }
  return equal;
}

/**
 * The sizes at which the relay answers v1's own page (status, content-type and body); one line saying it is
 * left out of the same-bytes check, with its reply's size beside the gateway's at each size.
 */
async function relaySizes(gateway: BenchProcess, relay: BenchProcess, fake: BenchProcess): Promise<Set<number>> {
  const relayed = new Set<number>();
  const sizes: string[] = [];
  for (const records of SAME_BYTES_SIZES) {
    const [v1, own, gw] = [
      await get(`${fake.url}/api/v1/clients?offset=0&limit=${records}`),
      await get(`${relay.url}${clientsPath(records)}`),
      await get(`${gateway.url}${clientsPath(records)}`),
    ];
    const diff = v1.status === 200 ? difference(v1, own, "v1's") : `v1 answered ${v1.status}`;
    if (diff === undefined) relayed.add(records);
    else console.log(`relay ${records}: not measured, its reply is not v1's (${diff})`);
    sizes.push(`${own.body.length} against ${gw.body.length} bytes at ${records}`);
  }
  console.log(
    `relay (the floor): not a same-bytes baseline, left out of that check: it sends v1's page on unchanged (checked at ` +
      `${relayed.size === 0 ? 'none' : [...relayed].join(', ')}), not the gateway's reply: ${sizes.join(', ')} records`,
  );
  return relayed;
}

export async function checkSameBytes(here: string, fake: BenchProcess, launcher: GatewayLauncher): Promise<SameBytes> {
  const started: BenchProcess[] = [];
  const found = findNginxLua(launcher.lifetimeS);
  let nginxLua = 'skipped' in found ? undefined : found;
  if ('skipped' in found) console.log(`nginx+Lua rows skipped: ${found.skipped}`);
  try {
    const gateway = await launchGateway(launcher, 'gateway (same-bytes check)', fake.url, { env: CACHE_OFF });
    started.push(gateway);
    const hand = await startChild('hand-written reshaper (check)', path.join(here, 'handwritten-reshaper.js'), ['--upstream', fake.url], launcher.lifetimeS);
    started.push(hand);
    const handwritten = await equalSizes('hand-written reshaper', gateway, hand);
    const relayChild = await startChild('relay (check)', path.join(here, 'relay.js'), ['--upstream', fake.url], launcher.lifetimeS);
    started.push(relayChild);
    const relay = await relaySizes(gateway, relayChild, fake);
    let nginxLuaSizes = new Set<number>();
    if (nginxLua) {
      try {
        const lua = await startNginxLua('nginx+Lua reshaper (check)', nginxLua, fake);
        started.push(lua);
        nginxLuaSizes = await equalSizes('nginx+Lua reshaper', gateway, lua);
      } catch (err) {
        console.log(`nginx+Lua rows skipped: it could not serve the bench's requests (${err instanceof Error ? err.message : String(err)})`);
        nginxLua = undefined;
      }
    }
    const sizes = (s: Set<number>) => (s.size === 0 ? 'none' : [...s].join(', '));
    console.log(
      `same bytes as the gateway (body and content-type, /api/clients/0/N): hand-written reshaper at ${sizes(handwritten)}; ` +
        `nginx+Lua reshaper at ${nginxLua ? `${sizes(nginxLuaSizes)} (nginx ${nginxLua.version}, worker_processes 1)` : 'none (skipped)'}`,
    );
    return { handwritten, nginxLua, nginxLuaSizes, relay };
  } finally {
    for (const server of started.reverse()) await server.stop();
  }
}
