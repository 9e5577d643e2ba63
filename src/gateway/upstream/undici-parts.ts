// The parts of undici the gateway serves with: its connection pool, its errors and its request API, loaded
// from their own files. undici's index loads all of undici (fetch, WebSocket, caches, cookies), and that code
// reaches for the web globals (`File`, `Headers`) that make Node load its own bundled copy of undici too:
// about 10 MB more resident memory for nothing the gateway calls. The classes are the same ones the index
// exports (it requires these files), so `instanceof` on undici's errors holds whichever way they came.
import { createRequire } from 'node:module';
import type { Dispatcher, Pool as UndiciPool, errors as UndiciErrors } from 'undici';

const load = createRequire(import.meta.url);

export const Pool = load('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
export type Pool = UndiciPool;

export const undiciErrors = load('undici/lib/core/errors.js') as typeof UndiciErrors;

const apiRequest = load('undici/lib/api/api-request.js') as (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

/** undici's request API (`dispatcher.request`, which its index adds to every dispatcher) on `dispatcher`. */
export const requestOn = (dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> => apiRequest.call(dispatcher, options);
