// node:http as the gateway's servers use it, loaded with require rather than imported. On Node 26, importing
// node:http as an ES module reads every one of its exports, and its `WebSocket` getter loads Node's bundled
// copy of undici (about 16 MB more resident memory, for a client the gateway never uses); require leaves
// that getter alone. Types come from `import type`, which loads nothing.
import { createRequire } from 'node:module';
import type * as NodeHttp from 'node:http';

export const http = createRequire(import.meta.url)('node:http') as typeof NodeHttp;
