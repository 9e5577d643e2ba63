// The one parse of an incoming request: its target split into path and query as they came, the legacy
// method and segments of `/api/{method}/...`, the query parameters in order (without `api_key`), the
// API key the call carries to v1 (api-key.ts), the payment's Idempotency-Key, and whether the replay sent it. Made once by the edge and
// handed to every step and route; nothing downstream reads req.url or these headers again. The query is parsed on first use only: the
// passthrough, the busiest route, needs it only when it may hold `api_key`.
import type { IncomingHttpHeaders } from 'node:http';
import { parseLegacyPath, splitTarget, type LegacyPath } from '../../shared/request-target.js';
import { isReplayedCall } from '../../shared/replay-header.js';
import { API_KEY_PARAM, apiKeyOf, queryMayHoldApiKey } from './api-key.js';

export class LegacyRequest {
  /** The request target as it came (`/api/clients/0/5?x=1`). */
  readonly url: string;
  readonly path: string;
  /** The query string without its `?` ('' when there is none). */
  readonly search: string;
  /** `/api/{method}/...` read as a legacy call; undefined for any other path. */
  readonly legacy: LegacyPath | undefined;
  private params: Array<[string, string]> | undefined;
  private key: { value: string | undefined } | undefined;

  constructor(
    readonly httpMethod: string,
    url: string | undefined,
    private readonly headers: IncomingHttpHeaders,
    private readonly fallbackApiKey: string | undefined,
  ) {
    this.url = url ?? '/';
    const { path, search } = splitTarget(this.url);
    this.path = path;
    this.search = search;
    this.legacy = parseLegacyPath(path);
  }

  /** Whether the query string may name `api_key` (false: it certainly does not). */
  get keyMayBeInQuery(): boolean {
    return queryMayHoldApiKey(this.search);
  }

  /** Every query parameter in order, decoded, `api_key` included. */
  get allParams(): ReadonlyArray<[string, string]> {
    this.params ??= this.search === '' ? [] : [...new URLSearchParams(this.search)];
    return this.params;
  }

  /** The query parameters a legacy method reads: in order, `api_key` left out. */
  get query(): Array<[string, string]> {
    return this.allParams.filter(([name]) => name !== API_KEY_PARAM);
  }

  /** The key sent to v1: X-API-KEY as is, else `api_key` from the query, else UPSTREAM_API_KEY. */
  get apiKey(): string | undefined {
    this.key ??= { value: apiKeyOf(this.headers, this.keyMayBeInQuery ? this.allParams : [], this.fallbackApiKey) };
    return this.key.value;
  }

  /** The Idempotency-Key header as sent (its first value), unchecked; undefined when there is none. Its
   * format is the payment contract's to judge. */
  get idempotencyKey(): string | undefined {
    const header = this.headers['idempotency-key'];
    return Array.isArray(header) ? header[0] : header;
  }

  /** Whether `legacy-gateway replay` sent the call (its `Legacy-Gateway-Replay: 1` header): it is neither
   * recorded nor counted in GET /usage. */
  get replayed(): boolean {
    return isReplayedCall(this.headers);
  }

  /** Whether the key sent to v1 is the gateway's own (UPSTREAM_API_KEY), lent to a call that brought none. */
  get apiKeyIsLent(): boolean {
    return this.fallbackApiKey !== undefined && apiKeyOf(this.headers, this.keyMayBeInQuery ? this.allParams : [], undefined) === undefined;
  }
}
