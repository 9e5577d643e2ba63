// Reads a V8 .cpuprofile of the gateway (node --cpu-prof) and says which layer each sample's time belongs
// to, as shares of the CPU the process spent (idle samples left out). A sample is the layer of the first
// frame, from the leaf up, that belongs to a layer: a native frame (JSON.parse, a Buffer copy, a socket
// write) counts for whoever called it, so `writev` under the response's write is the reply's writing and
// under undici the upstream client's. Node's generic plumbing (streams, events, sockets, timers) is looked
// through the same way; a sample with nothing above it but that plumbing is "node internals / event loop".
// The start (loading modules, mappings, settings) is left out: the shares are of the samples from the first
// request the gateway's handler took (its readiness check) on.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

export const LAYERS = [
  'node:http server and parsing',
  'edge and steps',
  'request line and logging',
  'metrics',
  'upstream client',
  'translation',
  'reply writing (JSON and bytes, node:http response)',
  'cache and single-flight',
  'tracing',
  'garbage collection',
  'write system call: the reply',
  'write system call: the v1 request',
  'write system call: the log line',
  'node internals / event loop',
  'other',
] as const;

export type Layer = (typeof LAYERS)[number];

/** Node's native writes to a socket or a file: the system call, which on loopback also carries the
 * kernel's delivery to the reader. Counted apart, by what wrote (the relay pays the first two too). */
const WRITE_CALLS: ReadonlySet<string> = new Set(['writev', 'writeBuffer', 'writeLatin1String', 'writeUtf8String', 'writeAsciiString', 'writeUcs2String', 'writeString']);

/** The layer of a frame by its script, or undefined for plumbing that belongs to its caller. */
function layerOfFrame(url: string, functionName: string): Layer | undefined {
  if (url === '') {
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === '(program)' || functionName === '(root)') return 'other';
    return undefined;
  }
  if (/node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|atomic-sleep|on-exit-leak-free|safe-stable-stringify)\//.test(url)) return 'request line and logging';
  if (/node_modules\/(prom-client|tdigest|bintrees)\//.test(url)) return 'metrics';
  // undici's HTTP parser is its only WebAssembly.
  if (/node_modules\/undici\//.test(url) || url.startsWith('node:internal/deps/undici') || url.startsWith('wasm://')) return 'upstream client';
  if (/node_modules\/@opentelemetry\//.test(url)) return 'tracing';
  if (url.includes('/node_modules/')) return 'other';
  const dist = /\/dist\/(.+)$/.exec(url);
  if (dist) return layerOfGatewayFile(dist[1]!);
  if (/^node:_http_(server|incoming|common)$/.test(url)) return 'node:http server and parsing';
  if (url === 'node:_http_outgoing') return 'reply writing (JSON and bytes, node:http response)';
  if (url.startsWith('node:') || url.startsWith('internal/')) return undefined;
  return 'other';
}

function layerOfGatewayFile(file: string): Layer {
  if (/^mapping\//.test(file)) return 'translation';
  if (/^gateway\/(request-line|logging)\.js$/.test(file)) return 'request line and logging';
  if (/^gateway\/metrics\//.test(file)) return 'metrics';
  if (/^gateway\/tracing\//.test(file)) return 'tracing';
  if (/^gateway\/upstream\/(response-cache|single-flight)\.js$/.test(file) || /^gateway\/state\/caches\//.test(file)) return 'cache and single-flight';
  if (/^gateway\/upstream\//.test(file)) return 'upstream client';
  if (/^gateway\/edge\/write-json\.js$/.test(file) || /^gateway\/routes\/reply-relay\.js$/.test(file)) return 'reply writing (JSON and bytes, node:http response)';
  if (/^gateway\/(edge|steps|lifecycle\.js|state\/usage|integrations|brownouts)/.test(file) || /^shared\/(redact|request-target)\.js$/.test(file)) return 'edge and steps';
  if (/^gateway\/routes\//.test(file)) return 'translation';
  return 'other';
}

function writeCallOf(writer: Layer | 'idle'): Layer {
  if (writer === 'upstream client') return 'write system call: the v1 request';
  if (writer === 'request line and logging') return 'write system call: the log line';
  return 'write system call: the reply';
}

export interface LayerShares {
  /** Samples the process was busy serving (idle ones and the start left out). */
  busySamples: number;
  /** Busy samples before the handler's first request: the start. */
  startSamples: number;
  /** Each layer's share, and the frames its samples ended in (self time), most first. */
  shares: Array<{ layer: Layer; percent: number; frames: Array<{ frame: string; percent: number }> }>;
  /** The frames whose samples went to `other`, most first: what the layers above leave out. */
  other: Array<{ frame: string; percent: number }>;
}

export function layerShares(file: string): LayerShares {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const layerOfNode = new Map<number, Layer | 'idle'>();
  const resolve = (id: number): Layer | 'idle' => {
    const known = layerOfNode.get(id);
    if (known !== undefined) return known;
    const { url, functionName } = byId.get(id)!.callFrame;
    let layer: Layer | 'idle';
    if (functionName === '(idle)') layer = 'idle';
    else {
      const own = layerOfFrame(url, functionName);
      const up = parent.get(id);
      if (url === '' && WRITE_CALLS.has(functionName)) layer = writeCallOf(up === undefined ? 'other' : resolve(up));
      else if (own !== undefined) layer = own;
      else if (up === undefined) layer = 'node internals / event loop';
      else {
        const above = resolve(up);
        layer = above === 'other' && byId.get(up)!.callFrame.functionName === '(root)' ? 'node internals / event loop' : above;
      }
    }
    layerOfNode.set(id, layer);
    return layer;
  };
  const handlerNodes = new Set(profile.nodes.filter((n) => n.callFrame.url.endsWith('/dist/gateway/edge/router.js')).map((n) => n.id));
  const inHandler = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) if (handlerNodes.has(at)) return true;
    return false;
  };
  const served = profile.samples.findIndex(inHandler);
  const counts = new Map<Layer, number>();
  const frames = new Map<Layer, Map<string, number>>(LAYERS.map((layer) => [layer, new Map()]));
  let busy = 0;
  let start = 0;
  for (const [i, id] of profile.samples.entries()) {
    const layer = resolve(id);
    if (layer === 'idle') continue;
    if (served < 0 || i < served) {
      start++;
      continue;
    }
    busy++;
    counts.set(layer, (counts.get(layer) ?? 0) + 1);
    const { functionName, url } = byId.get(id)!.callFrame;
    const frame = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}`.trim();
    const own = frames.get(layer)!;
    own.set(frame, (own.get(frame) ?? 0) + 1);
  }
  const percent = (n: number): number => (100 * n) / Math.max(busy, 1);
  const top = (layer: Layer, n: number) =>
    [...frames.get(layer)!]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([frame, count]) => ({ frame, percent: percent(count) }));
  return {
    busySamples: busy,
    startSamples: start,
    shares: LAYERS.map((layer) => ({ layer, percent: percent(counts.get(layer) ?? 0), frames: top(layer, 5) })),
    other: top('other', 8),
  };
}
