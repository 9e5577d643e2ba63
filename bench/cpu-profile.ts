// Reads a V8 .cpuprofile (node --cpu-prof) and lists where the samples fall: the top functions by self
// time, and the same grouped by package or source file, so a bench run says where the time goes.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

export interface FrameShare {
  name: string;
  percent: number;
}

/** `node_modules/pino/...` -> `pino`; `dist/server/app.js` -> `gateway:server/app.js`; builtins as they are. */
function groupOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nm) return nm[1]!;
  const dist = /\/dist\/(.+)$/.exec(url);
  if (dist) return `gateway:${dist[1]}`;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
}

export function summariseProfile(file: string, top = 15): { frames: FrameShare[]; groups: FrameShare[]; samples: number } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const frames = new Map<string, number>();
  const groups = new Map<string, number>();
  for (const [id, count] of hits) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url === '' ? '' : ` ${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}`;
    const frame = `${functionName || '(anonymous)'}${where}`;
    frames.set(frame, (frames.get(frame) ?? 0) + count);
    const group = groupOf(url, functionName);
    groups.set(group, (groups.get(group) ?? 0) + count);
  }
  const ranked = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, n]) => ({ name, percent: (100 * n) / total }));
  return { frames: ranked(frames), groups: ranked(groups), samples: total };
}
