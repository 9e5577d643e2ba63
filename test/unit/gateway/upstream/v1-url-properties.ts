// A property of v1RequestPath, run a few hundred times in v1-url.test.ts and by the thousand in
// v1-url.long.test.ts: a path a URL parser reads back exactly as sent, whatever the upstream URL's own path.
import fc from 'fast-check';
import { expect } from 'vitest';
import { v1RequestPath, v1Target } from '../../../../src/gateway/upstream/v1-url.js';

const v1Path = fc.oneof(fc.stringMatching(/^\/[a-z][a-z0-9-]{0,12}(\/\d{1,15})?$/), fc.string());

export const pathReadBackExactly = fc.property(fc.webPath(), v1Path, (base, path) => {
  let upstream: ReturnType<typeof v1Target>;
  try {
    upstream = v1Target(`https://svc.example.com${base}`);
  } catch {
    // Refused at start only where a URL parser reads a host in the path (`//x`, or `/.//x` once its dot
    // segment is resolved): the settings refuse such an UPSTREAM_URL first.
    expect(new URL(`https://svc.example.com${base}`).pathname.startsWith('//')).toBe(true);
    return;
  }
  let built: string | undefined;
  try {
    built = v1RequestPath(upstream, path, {});
  } catch {
    return;
  }
  expect(new URL(built, upstream.origin).pathname).toBe(built);
  expect(built).toBe(`${upstream.apiPrefix}${path}`);
});
