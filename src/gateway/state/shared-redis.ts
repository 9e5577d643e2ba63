// The port through which the stores share state between replicas (REDIS_URL): the few Redis commands
// they need, and whether Redis can be reached right now. The connection (node-redis, reconnects with
// backoff, one log line per state change) implements it; the stores never know the client library, and
// a test can hand them a fake. A command while Redis is down rejects at once: nothing is queued.
export interface SetOptions {
  /** SET NX: only when the key does not exist (an atomic claim). */
  ifAbsent?: boolean;
  /** SET XX: only when the key exists. */
  ifPresent?: boolean;
  /** PX: the key's time to live. */
  ttlMs?: number;
  /** KEEPTTL: keep the key's current time to live. */
  keepTtl?: boolean;
}

export interface SharedRedis {
  /** Connected and ready: commands may be sent. */
  isUp(): boolean;
  get(key: string): Promise<string | null>;
  /** Resolves whether the value was set (false: NX or XX did not hold). */
  set(key: string, value: string, options?: SetOptions): Promise<boolean>;
  publish(channel: string, message: string): Promise<void>;
  /** Calls `onMessage` for every message on `channel`, over a connection of its own, resubscribed after a reconnect. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<void>;
  /** Told each time Redis comes up or goes down. */
  onStateChange(listener: (up: boolean) => void): void;
  close(): Promise<void>;
}

/** What the payment claims need of Redis beyond the shared state's commands: atomic scripts, replica
 * acknowledgements and the server's own report of its persistence. Only the connection of REDIS_URL (or
 * IDEMPOTENCY_URL's Redis) implements it; the read cache never needs it. */
export interface ClaimsRedis extends SharedRedis {
  /** EVAL: runs a Lua script atomically; its reply as node-redis gives it. */
  evalScript(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /** WAIT on the commands connection: how many replicas acknowledged its writes within `timeoutMs`. */
  waitReplicas(count: number, timeoutMs: number): Promise<number>;
  /** INFO `section`, as Redis writes it (`name:value` lines). */
  info(section: string): Promise<string>;
}
