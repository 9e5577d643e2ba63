// The rows that put nginx in front (bench/nginx.ts runs it): nginx alone as a plain proxy to the fake v1,
// and the front `legacy-gateway routes --format nginx` generates, in front of a gateway and the fake v1.
// Before the runs, both are seen to serve the bench's requests; else the nginx rows are skipped, with one
// line saying why.
import { CACHE_OFF, launchGateway, type GatewayLauncher } from './gateway-launch.js';
import type { TargetSpec } from './measure.js';
import { generatedFront, nginxBinary, nginxVersion, plainProxyConfig, startBenchNginx, type BenchNginx } from './nginx.js';
import { freePort, type BenchProcess } from './processes.js';
import { HANDFUL_OF_KEYS, handfulOfKeys, newKeyPerRequest } from './requests.js';
import { FRONT_PASSTHROUGH, FRONT_TRANSLATED, FRONT_TRANSLATED_UNCACHED, NGINX_PLAIN, PASSTHROUGH_PATH, clientsPath } from './target-names.js';

/** nginx as the bench found it and saw it serve; absent, the nginx rows are skipped. */
export interface NginxSetup {
  binary: string;
  version: string;
  launcher: GatewayLauncher;
}

async function startPlainProxy(name: string, nginx: NginxSetup, upstream: BenchProcess): Promise<BenchNginx> {
  const port = await freePort();
  return startBenchNginx(name, nginx.binary, port, { body: plainProxyConfig(port, upstream.url) }, nginx.launcher.lifetimeS);
}

/**
 * The generated front: a gateway started as the gateway rows start it (with `env` added), then `routes
 * --format nginx` for a front before it and the fake v1, then nginx with it. To the bench one process: its
 * CPU time is nginx's and the gateway's together (and each one's, as its parts), its peak RSS nginx's;
 * stopping it stops both.
 */
async function startFront(name: string, nginx: NginxSetup, upstream: BenchProcess, env: Record<string, string> = {}): Promise<BenchProcess> {
  const { launcher } = nginx;
  const gw = await launchGateway(launcher, `${name} (its gateway)`, upstream.url, { env });
  try {
    const port = await freePort();
    const front = await startBenchNginx(name, nginx.binary, port, { include: await generatedFront(launcher.cli, port, gw.url, upstream.url) }, launcher.lifetimeS);
    return {
      ...front,
      cpuSeconds() {
        const [a, b] = [front.cpuSeconds(), gw.cpuSeconds()];
        return a === undefined || b === undefined ? undefined : a + b;
      },
      cpuParts: () => ({ nginx: front.cpuSeconds(), gateway: gw.cpuSeconds() }),
      async stop() {
        try {
          await front.stop();
        } finally {
          await gw.stop();
        }
      },
    };
  } catch (err) {
    await gw.stop();
    throw err;
  }
}

const nginxTarget = (name: string, urlPath: string, start: TargetSpec['start'], keys: TargetSpec['keys'] = 'handful'): TargetSpec => ({
  name,
  path: urlPath,
  start,
  keys,
  load: () => ({ requests: keys === 'handful' ? handfulOfKeys(urlPath) : newKeyPerRequest(urlPath) }),
});

/** nginx's rows, by where they run: the passthrough pair beside direct v1, the translated ones beside the
 * gateway's (the cached read, and the read with a new key per request and the cache off). */
export function nginxTargets(nginx: NginxSetup | undefined): { passthrough: TargetSpec[]; translated: TargetSpec[]; translatedUncached: TargetSpec[] } {
  if (!nginx) return { passthrough: [], translated: [], translatedUncached: [] };
  const list = clientsPath(100);
  return {
    passthrough: [
      nginxTarget(NGINX_PLAIN, PASSTHROUGH_PATH, (upstream) => startPlainProxy(NGINX_PLAIN, nginx, upstream)),
      nginxTarget(FRONT_PASSTHROUGH, PASSTHROUGH_PATH, (upstream) => startFront(FRONT_PASSTHROUGH, nginx, upstream)),
    ],
    translated: [nginxTarget(FRONT_TRANSLATED, list, (upstream) => startFront(FRONT_TRANSLATED, nginx, upstream))],
    translatedUncached: [
      nginxTarget(FRONT_TRANSLATED_UNCACHED, list, (upstream) => startFront(FRONT_TRANSLATED_UNCACHED, nginx, upstream, CACHE_OFF), 'new per request'),
    ],
  };
}

/**
 * nginx, once the plain proxy and the generated front have been seen to serve the bench's requests (the
 * passthrough as direct v1 answers it, the translated page as a legacy list of 100 records); else undefined,
 * with one line saying why the nginx rows are skipped.
 */
export async function startNginx(fake: BenchProcess, launcher: GatewayLauncher): Promise<NginxSetup | undefined> {
  const skip = (why: string) => {
    console.log(`nginx rows skipped: ${why}`);
    return undefined;
  };
  const binary = nginxBinary();
  if (!binary) return skip('nginx is not installed (Debian: apt-get install nginx)');
  const nginx = { binary, version: nginxVersion(binary), launcher };
  const started: BenchProcess[] = [];
  const text = async (url: string): Promise<string> => {
    const res = await fetch(url, { headers: { 'x-api-key': HANDFUL_OF_KEYS[0]! } });
    const body = await res.text();
    if (!res.ok) throw new Error(`${url} answered ${res.status} ${body.slice(0, 200)}`);
    return body;
  };
  try {
    const plain = await startPlainProxy('nginx plain proxy (check)', nginx, fake);
    started.push(plain);
    const front = await startFront('nginx front (check)', nginx, fake);
    started.push(front);
    const direct = await text(`${fake.url}${PASSTHROUGH_PATH}`);
    if ((await text(`${plain.url}${PASSTHROUGH_PATH}`)) !== direct) throw new Error(`the plain proxy's ${PASSTHROUGH_PATH} differs from direct v1's`);
    if ((await text(`${front.url}${PASSTHROUGH_PATH}`)) !== direct) throw new Error(`the front's ${PASSTHROUGH_PATH} differs from direct v1's`);
    const list = JSON.parse(await text(`${front.url}${clientsPath(100)}`)) as { status?: unknown; response?: unknown };
    if (list.status !== 'success' || !Array.isArray(list.response) || list.response.length !== 100) {
      throw new Error(`the front's ${clientsPath(100)} is not a legacy list of 100 records`);
    }
    console.log(
      `nginx: ${binary} ${nginx.version}, worker_processes 1, on loopback, its own folder and pid file per run; ` +
        `the front from dist/cli.js routes --format nginx (its passthrough and translated replies checked)`,
    );
    return nginx;
  } catch (err) {
    return skip(`nginx could not serve the bench's requests (${err instanceof Error ? err.message : String(err)})`);
  } finally {
    for (const server of started.reverse()) await server.stop();
  }
}
