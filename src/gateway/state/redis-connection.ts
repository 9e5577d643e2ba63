// The gateway's connection to Redis (REDIS_URL), behind the SharedRedis port the stores use: two
// node-redis clients, one for commands and one for subscriptions (a subscribed connection can send nothing
// else), each reconnecting by itself with a jittered, capped backoff. It must never crash the process
// (every client has an `error` listener), never queue a command while Redis is down (it rejects at once),
// never let a stalled Redis hold a request (every command has a deadline), never log more than one line
// per change of state, and never print REDIS_URL's password.
//
// A command's deadline runs from the call to the reply. node-redis's own `timeout` and AbortSignal options
// stop counting once a command is written to the socket, and its socketTimeout is reset by every write, so
// neither notices a server that accepts commands and never answers. Here a missed deadline (or a missed
// heartbeat PING) counts as an outage: both clients are dropped and made anew, which closes the stalled
// sockets and rejects whatever waited on them. Redis is up only once both clients have answered a PING.
import { createClient, ErrorReply } from '@redis/client';
import type { Logger } from 'pino';
import { maskRedisUrl } from '../config.js';
import type { ClaimsRedis, SetOptions } from './shared-redis.js';

/** Redis could not be asked, or did not answer in time. Redis's own error replies (`OOM ...`, `NOPERM ...`)
 * are passed on as node-redis's ErrorReply instead, so a store can tell a full Redis from an absent one. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** One instance: a command refused while Redis is down costs no stack trace (reads ask on every miss). */
const DOWN = new RedisUnavailableError('Redis is down');

export interface Backoff {
  /** The ceiling of the first delay; it doubles per attempt up to `maxMs`. */
  firstMs: number;
  maxMs: number;
}

/** Reconnection delays: 50-100 ms, 100-200 ms, ... up to 1.5-3 s between attempts. */
export const DEFAULT_BACKOFF: Backoff = { firstMs: 100, maxMs: 3000 };
/** Redis answers in well under a millisecond on its network: a second without an answer is a stall. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1000;
/** How often each client is asked for a PING, so that a dead connection is noticed while idle. */
export const DEFAULT_HEARTBEAT_MS = 2000;

export interface RedisConnectionOptions {
  /** REDIS_URL (redis:// or rediss://, password and database number in it). */
  url: string;
  logger: Logger;
  commandTimeoutMs?: number;
  /** How long one TCP (and TLS) connect may take (default: the command timeout x 3). */
  connectTimeoutMs?: number;
  heartbeatMs?: number;
  backoff?: Backoff;
  random?: () => number;
  /** Whether the payment claims live in this Redis (default) or elsewhere (IDEMPOTENCY_URL): its state lines
   * say what it shares, so an operator is never told claims are in Redis when they are not. */
  holdsClaims?: boolean;
}

export interface RedisConnection extends ClaimsRedis {
  /** Settles once the first attempt to connect has: Redis up (and its eviction policy read), or found down
   * (it keeps trying in the background). Never rejects: a gateway starts without Redis. */
  readonly started: Promise<void>;
}

/** Equal jitter: between half the ceiling and the ceiling, so attempts from many replicas spread out
 * without ever coming back at once; the ceiling doubles per attempt up to `maxMs`. */
export function reconnectDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(attempt, 20));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Policies under which Redis may drop a key before its TTL (every one but `noeviction`). */
const evicts = (policy: string): boolean => policy !== 'noeviction';

/** A node-redis client: no offline queue (a command while disconnected rejects at once), reconnecting by itself. */
function newClient(url: string, settings: { commandTimeoutMs: number; connectTimeoutMs: number; backoff: Backoff; random: () => number }) {
  return createClient({
    url,
    disableOfflineQueue: true,
    // Only bounds a command not yet written (a busy socket); withDeadline bounds the rest.
    commandOptions: { timeout: settings.commandTimeoutMs },
    // Redis Enterprise's maintenance notices would stretch the timeouts to 10 s: the deadlines here stay.
    maintNotifications: 'disabled',
    socket: {
      connectTimeout: settings.connectTimeoutMs,
      // Never gives up: a number for every attempt, whatever the cause (node-redis's default stops on a socket timeout).
      reconnectStrategy: (attempt: number) => reconnectDelay(attempt, settings.backoff, settings.random),
    },
  });
}

type Client = ReturnType<typeof newClient>;

/** One node-redis client, and whether it has answered a PING since it last connected. */
interface Link {
  client: Client;
  answered: boolean;
  /** Subscriber only: the channels Redis confirmed on this client (node-redis resubscribes them itself). */
  subscribed: Set<string>;
  /** The first attempt to connect has ended, one way or the other. */
  tried: boolean;
}

function withDeadline<T>(work: Promise<T>, ms: number, onMiss: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onMiss();
      reject(new RedisUnavailableError(`Redis gave no answer within ${ms} ms`));
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof ErrorReply ? err : new RedisUnavailableError('Redis could not be asked', { cause: err }));
      },
    );
  });
}

/** Why a connection failed, for the state's log line: Redis's error code (WRONGPASS, NOAUTH, LOADING...) or
 * the system's (ECONNREFUSED, ENOTFOUND...); else the error's message (the client's own errors carry no code:
 * "Socket closed unexpectedly", "Connection timeout"), its first line, with any URL's credentials and the
 * password itself masked, never the class name alone ("Error"). */
export function reasonOf(err: unknown, password = ''): string {
  if (err instanceof ErrorReply) return /^[A-Z]+/.exec(err.message)?.[0] ?? 'an error reply';
  if (!(err instanceof Error)) return 'unknown';
  const code = (err as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && code !== '') return code;
  let message = (err.message.split('\n')[0] ?? '').replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@');
  if (password !== '') message = message.split(password).join('***');
  message = message.trim().slice(0, 200);
  return message !== '' ? message : err.name === 'Error' ? 'unknown' : err.name;
}

/** Why the state changed, for its one log line. */
function stateMessage(now: boolean, before: boolean | undefined, holdsClaims: boolean): { level: 'info' | 'warn' | 'error'; msg: string } {
  const shared = holdsClaims ? 'Idempotency-Keys and the read cache are shared' : 'the read cache is shared (payment claims are kept in IDEMPOTENCY_URL)';
  if (now && before === undefined) return { level: 'info', msg: `Redis connected: ${shared}` };
  if (now) return { level: 'info', msg: `Redis reachable again: ${shared} again` };
  if (before === undefined) return { level: 'warn', msg: 'Redis unreachable at start: serving anyway, reconnecting in the background' };
  return { level: 'error', msg: 'Redis unreachable: shared state unavailable, reconnecting in the background' };
}

class Connection implements RedisConnection {
  readonly started: Promise<void>;
  private settleStarted: () => void = () => undefined;
  private readonly logger: Logger;
  /** REDIS_URL with its password masked: the only form in which it is ever logged. */
  private readonly redis: string;
  /** The password in REDIS_URL, decoded: masked wherever an error's message would repeat it. */
  private readonly password: string;
  private readonly commandTimeoutMs: number;
  private readonly listeners: Array<(up: boolean) => void> = [];
  /** Every channel asked for, with its listeners: what a new subscriber client is subscribed from. */
  private readonly channels = new Map<string, Set<(message: string) => void>>();
  private readonly dispatchers = new Map<string, (message: string) => void>();
  /** undefined until the first attempt to connect has ended. */
  private up: boolean | undefined;
  private lastReason = 'connecting';
  private closed = false;
  private policyRead = false;
  private commands: Link;
  private subscriber: Link;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly options: RedisConnectionOptions) {
    this.logger = options.logger;
    this.redis = maskRedisUrl(options.url);
    this.password = URL.canParse(options.url) ? decodeURIComponent(new URL(options.url).password) : '';
    this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.started = new Promise<void>((resolve) => {
      this.settleStarted = resolve;
    });
    this.commands = this.link('commands');
    this.subscriber = this.link('subscriber');
    this.heartbeat = setInterval(() => this.beat(), options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private link(role: 'commands' | 'subscriber'): Link {
    const client = newClient(this.options.url, {
      commandTimeoutMs: this.commandTimeoutMs,
      connectTimeoutMs: this.options.connectTimeoutMs ?? this.commandTimeoutMs * 3,
      backoff: this.options.backoff ?? DEFAULT_BACKOFF,
      random: this.options.random ?? Math.random,
    });
    const link: Link = { client, answered: false, subscribed: new Set(), tried: false };
    const lost = (err?: unknown) => {
      if (err !== undefined) this.lastReason = reasonOf(err, this.password);
      if (!this.isCurrent(link)) return;
      link.answered = false;
      link.tried = true;
      link.subscribed.clear();
      this.update();
    };
    client.on('error', (err: unknown) => lost(err));
    client.on('end', () => lost());
    client.on('reconnecting', () => lost());
    client.on('ready', () => void this.confirm(link, role));
    // Resolves once connected, which may take until Redis is back; rejects only when dropped (close, a stall).
    client.connect().catch(() => undefined);
    return link;
  }

  private isCurrent(link: Link): boolean {
    return !this.closed && (link === this.commands || link === this.subscriber);
  }

  /** Ready is not up: a server that accepts connections and never answers would look ready. */
  private async confirm(link: Link, role: 'commands' | 'subscriber'): Promise<void> {
    try {
      await withDeadline(link.client.ping(), this.commandTimeoutMs, () => this.stalled(link));
    } catch (err) {
      this.lastReason = reasonOf(err instanceof RedisUnavailableError && err.cause !== undefined ? err.cause : err, this.password);
      return;
    }
    // Read before Redis is said to be up, so that its warning comes with (or before) the first "connected".
    if (role === 'commands') await this.readEvictionPolicy(link);
    if (!this.isCurrent(link) || !link.client.isReady) return;
    link.answered = true;
    link.tried = true;
    if (role === 'subscriber') for (const channel of this.channels.keys()) void this.subscribeOn(link, channel);
    this.update();
  }

  /** Once per process: a Redis that may evict keys may forget an Idempotency-Key, and pay twice. */
  private async readEvictionPolicy(link: Link): Promise<void> {
    if (this.policyRead) return;
    this.policyRead = true;
    try {
      const reply = await withDeadline(link.client.configGet('maxmemory-policy'), this.commandTimeoutMs, () => undefined);
      const policy = String(reply['maxmemory-policy'] ?? '');
      if (evicts(policy)) {
        this.logger.warn(
          { redis: this.redis, maxmemoryPolicy: policy },
          `Redis maxmemory-policy is ${policy}: it may evict keys, so Idempotency-Keys could be forgotten and a repeated payment made twice; set maxmemory-policy noeviction`,
        );
      }
    } catch (err) {
      // Managed services often refuse CONFIG: nothing can be known, nothing is wrong.
      this.logger.debug({ redis: this.redis, reason: reasonOf(err, this.password) }, 'Redis refused CONFIG GET maxmemory-policy: its eviction policy is not known');
    }
  }

  /** Up when both clients have answered; one log line, and one call per listener, for each change. */
  private update(): void {
    if (this.closed) return;
    const now = this.commands.answered && this.subscriber.answered;
    if (this.up === undefined && !now && !(this.commands.tried && this.subscriber.tried)) return;
    if (now === this.up) return;
    const before = this.up;
    this.up = now;
    const { level, msg } = stateMessage(now, before, this.options.holdsClaims ?? true);
    this.logger[level]({ redis: this.redis, ...(now ? {} : { reason: this.lastReason }) }, msg);
    this.settleStarted();
    // No listener is told about the first "down": nothing was up before it.
    if (before === undefined && !now) return;
    for (const listener of this.listeners) {
      try {
        listener(now);
      } catch (err) {
        this.logger.error({ err }, 'a Redis state listener threw');
      }
    }
  }

  /** A missed deadline: both clients are dropped and made anew (see the head of this file). */
  private stalled(link: Link): void {
    if (!this.isCurrent(link)) return;
    this.lastReason = 'no answer';
    const old = [this.commands, this.subscriber];
    this.commands = this.link('commands');
    this.subscriber = this.link('subscriber');
    for (const o of old) o.client.destroy();
    // At start, a stall ends the first attempt: Redis is down.
    if (this.up === undefined) this.commands.tried = this.subscriber.tried = true;
    this.update();
  }

  /** A PING per answered client, so that a dead connection is noticed while nothing else is asked. */
  private beat(): void {
    for (const link of [this.commands, this.subscriber]) {
      if (link.answered) withDeadline(link.client.ping(), this.commandTimeoutMs, () => this.stalled(link)).catch(() => undefined);
    }
  }

  /** A command on the commands client, now or never: rejects at once while Redis is down. */
  private command<T>(run: (client: Client) => Promise<T>): Promise<T> {
    const link = this.commands;
    if (this.closed || this.up !== true || !link.answered) return Promise.reject(DOWN);
    return withDeadline(run(link.client), this.commandTimeoutMs, () => this.stalled(link));
  }

  private dispatcher(channel: string): (message: string) => void {
    let dispatch = this.dispatchers.get(channel);
    if (dispatch) return dispatch;
    dispatch = (message: string) => {
      for (const listener of this.channels.get(channel) ?? []) {
        try {
          listener(message);
        } catch (err) {
          this.logger.error({ err, channel }, 'a Redis message listener threw');
        }
      }
    };
    this.dispatchers.set(channel, dispatch);
    return dispatch;
  }

  private async subscribeOn(link: Link, channel: string): Promise<void> {
    if (link.subscribed.has(channel) || !link.answered) return;
    try {
      await withDeadline(link.client.subscribe(channel, this.dispatcher(channel)), this.commandTimeoutMs, () => this.stalled(link));
      link.subscribed.add(channel);
    } catch {
      // Subscribed again as soon as this (or a new) subscriber client answers.
    }
  }

  isUp(): boolean {
    return !this.closed && this.up === true;
  }

  get(key: string): Promise<string | null> {
    return this.command((c) => c.get(key));
  }

  async set(key: string, value: string, options: SetOptions = {}): Promise<boolean> {
    if (options.ifAbsent && options.ifPresent) throw new TypeError('set: ifAbsent and ifPresent exclude each other');
    if (options.ttlMs !== undefined && options.keepTtl) throw new TypeError('set: ttlMs and keepTtl exclude each other');
    if (options.ttlMs !== undefined && !(Number.isInteger(options.ttlMs) && options.ttlMs > 0)) throw new TypeError('set: ttlMs must be a whole number above 0');
    const condition = options.ifAbsent ? 'NX' : options.ifPresent ? 'XX' : undefined;
    const expiration = options.ttlMs !== undefined ? { type: 'PX' as const, value: options.ttlMs } : options.keepTtl ? ('KEEPTTL' as const) : undefined;
    const reply = await this.command((c) => c.set(key, value, { ...(condition ? { condition } : {}), ...(expiration ? { expiration } : {}) }));
    return reply !== null;
  }

  evalScript(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return this.command((c) => c.eval(script, { keys: [...keys], arguments: [...args] }));
  }

  async waitReplicas(count: number, timeoutMs: number): Promise<number> {
    return Number(await this.command((c) => c.wait(count, timeoutMs)));
  }

  async info(section: string): Promise<string> {
    return String(await this.command((c) => c.info(section)));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.command((c) => c.publish(channel, message));
  }

  /** Never rejects: while Redis is down the channel is remembered, and subscribed once it answers. */
  async subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    let listeners = this.channels.get(channel);
    if (!listeners) this.channels.set(channel, (listeners = new Set()));
    listeners.add(onMessage);
    if (!this.closed) await this.subscribeOn(this.subscriber, channel);
  }

  onStateChange(listener: (up: boolean) => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.settleStarted();
    // After the drain nothing waits on Redis that may not be cut short.
    for (const link of [this.commands, this.subscriber]) link.client.destroy();
  }
}

/** Connects at once, in the background: await `started` for the first attempt's outcome. */
export function createRedisConnection(options: RedisConnectionOptions): RedisConnection {
  return new Connection(options);
}
