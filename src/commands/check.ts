// `legacy-gateway check`: before a switch, probes what the gateway will depend on, in order: the settings
// and mappings load; the upstream can be reached at all (an HTTP exchange, whatever its status); the key is
// accepted (401 invalid_key); the account is not gated (403 account_*, 503 maintenance: one line for the
// whole account); and the key may read every v1 resource the mappings use (one GET with limit=1 each; 403
// resource_not_allowed, 429 budget). A check that cannot tell anything because an earlier one failed is
// reported as not run, never as a failure of its own. It never writes, and never prints a key. The key tested
// is UPSTREAM_API_KEY, or a caller's own given with --api-key; with neither (and a real upstream) nothing is
// probed, and that fails, unless --skip-upstream asks for the settings and mappings alone.
// Exit code (docs/cli.md: exit codes): 0 when nothing failed (warnings allowed), 1 when a check failed.
import { Client, errors as undiciErrors } from 'undici';
import { ConfigError, loadConfig, type GatewayConfig } from '../gateway/config.js';
import { loadMappingDirectory } from '../gateway/loaders/mapping-files.js';
import { v1RequestPath, v1Target, type V1Target } from '../gateway/upstream/v1-url.js';
import { MappingSetError } from '../mapping/mapping-set.js';
import { SANDBOX_KEYS, startSandbox, type RunningSandbox } from '../sandbox/index.js';

export type CheckResult = 'ok' | 'warn' | 'fail';

export interface CheckLine {
  check: string;
  /** false only for a failure: a warning is ok. */
  ok: boolean;
  result: CheckResult;
  detail: string;
}

/** The checks an earlier failure made pointless, and why. */
export interface NotRun {
  checks: string[];
  reason: string;
}

export interface CheckReport {
  ok: boolean;
  checks: CheckLine[];
  notRun?: NotRun;
}

/** v1's account-level 403 codes (v1's API reference, Authentication rule 7): every resource answers them alike. */
const ACCOUNT_GATES: ReadonlySet<string> = new Set(['account_unverified', 'account_locked', 'plan_not_allowed']);
/** A read reply is tiny (limit=1); anything near this is not v1 talking. */
const MAX_REPLY_BYTES = 4 * 1024 * 1024;
const MAX_MESSAGE = 200;

/** One GET as the upstream answered it, or why no HTTP exchange could be made. */
type Exchange =
  | { answered: true; status: number; ms: number; json: boolean; code: string | undefined; message: string | undefined; retryAfter: string | undefined }
  | { answered: false; reason: string };

const line = (check: string, result: CheckResult, detail: string): CheckLine => ({ check, ok: result !== 'fail', result, detail });

/** The error code of a network failure, wherever undici or net put it (an AggregateError holds one per address). */
function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const { code, errors, cause } = e as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    e = Array.isArray(errors) && errors.length > 0 ? errors[0] : cause;
  }
  return undefined;
}

/** Why no HTTP exchange could be made, naming the kind of failure: refused, DNS, TLS, timeout, ... */
function noExchangeReason(err: unknown, timedOut: boolean, timeoutMs: number, host: string): string {
  const code = errorCode(err);
  if (
    timedOut ||
    err instanceof undiciErrors.ConnectTimeoutError ||
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError ||
    code === 'ETIMEDOUT'
  ) {
    return `timeout: no answer within ${timeoutMs} ms (UPSTREAM_TIMEOUT_MS)`;
  }
  if (err instanceof undiciErrors.ResponseExceededMaxSizeError) return `the reply is larger than ${MAX_REPLY_BYTES / 1024 / 1024} MB`;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED): nothing listens there';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return `DNS failure: ${host} cannot be resolved (${code})`;
    case 'ECONNRESET':
      return 'connection reset (ECONNRESET)';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to ${host} (${code})`;
    case 'UND_ERR_SOCKET':
      return 'the connection closed before an answer (UND_ERR_SOCKET)';
    default:
      break;
  }
  if (code !== undefined && /CERT|SELF_SIGNED|UNABLE_TO|TLS|SSL|EPROTO|HOSTNAME/.test(code)) {
    return `TLS failure (${code})`;
  }
  return `no HTTP exchange (${code ?? (err instanceof Error ? err.name : 'unknown error')})`;
}

/** v1's `{"error":{"code","message"}}`, if the reply is one; the key is cut out should v1 echo it. */
function v1Error(body: unknown, apiKey: string | undefined): { code: string | undefined; message: string | undefined } {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const fields = typeof error === 'object' && error !== null ? (error as { code?: unknown; message?: unknown }) : {};
  const scrub = (text: string): string => (apiKey ? text.split(apiKey).join('[redacted]') : text);
  return {
    code: typeof fields.code === 'string' ? scrub(fields.code).slice(0, 100) : undefined,
    message: typeof fields.message === 'string' && fields.message.trim() !== '' ? scrub(fields.message).slice(0, MAX_MESSAGE) : undefined,
  };
}

/** The probes' HTTP side: one connection to the upstream, one GET at a time. */
class Prober {
  private readonly client: Client;
  private readonly target: V1Target;
  private readonly host: string;

  constructor(upstreamUrl: string, private readonly apiKey: string | undefined, private readonly timeoutMs: number) {
    this.target = v1Target(upstreamUrl);
    this.host = new URL(upstreamUrl).hostname;
    this.client = new Client(this.target.origin, {
      connect: { timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      maxResponseSize: MAX_REPLY_BYTES,
    });
  }

  /** GET /api/v1/<resource>?limit=1 with the key. */
  async read(resource: string): Promise<Exchange> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'legacy-gateway check' };
    if (this.apiKey !== undefined) headers['x-api-key'] = this.apiKey;
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), this.timeoutMs);
    const started = performance.now();
    try {
      const res = await this.client.request({
        method: 'GET',
        path: v1RequestPath(this.target, `/${resource}`, { limit: '1' }),
        headers,
        signal: timer.signal,
      });
      const text = await res.body.text();
      let body: unknown;
      let json = true;
      try {
        body = JSON.parse(text);
      } catch {
        json = false;
      }
      const retryAfter = res.headers['retry-after'];
      return {
        answered: true,
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
        json,
        ...v1Error(body, this.apiKey),
        retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
      };
    } catch (err) {
      return { answered: false, reason: noExchangeReason(err, timer.signal.aborted, this.timeoutMs, this.host) };
    } finally {
      clearTimeout(timeout);
    }
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}

type Answer = Extract<Exchange, { answered: true }>;

/** `403 resource_not_allowed` or `502`: the status and v1's code when it sent one. */
const statusAndCode = (a: Answer): string => `${a.status}${a.code ? ` ${a.code}` : ''}`;

/** What a read that is not a 2xx says, in words an operator can act on. */
function readFailure(a: Answer, resource: string): string {
  if (a.status === 401) return `${statusAndCode(a)}: the key is not valid`;
  if (a.status === 403 && a.code === 'resource_not_allowed') return `${statusAndCode(a)}: the key may not read ${resource}`;
  if (a.status === 429) return `${statusAndCode(a)}: the hourly budget for this URL and key is spent${a.retryAfter ? ` (retry after ${a.retryAfter} s)` : ''}`;
  return `${statusAndCode(a)}: ${a.message ?? (a.json ? 'no message' : 'not a v1 error reply')}`;
}

function readLine(resource: string, e: Exchange): CheckLine {
  const check = `read ${resource}`;
  if (!e.answered) return line(check, 'fail', e.reason);
  if (e.status >= 200 && e.status < 300) {
    return e.json ? line(check, 'ok', `HTTP ${e.status} in ${e.ms} ms`) : line(check, 'fail', `HTTP ${e.status}, but the reply is not JSON`);
  }
  return line(check, 'fail', readFailure(e, resource));
}

/** An account-level answer that every resource would give alike, or undefined. */
function accountGate(a: Answer): string | undefined {
  if (a.status === 403 && a.code !== undefined && ACCOUNT_GATES.has(a.code)) return `${statusAndCode(a)}: ${a.message ?? 'the account may not use the API'}`;
  if (a.status === 503) return `${statusAndCode(a)}: ${a.message ?? 'the service is unavailable'}`;
  return undefined;
}

/** What the probes need: the settings, and the v1 resources the mappings read, in mapping order. */
interface Plan {
  config: GatewayConfig;
  resources: string[];
}

/** Settings and mappings; a failure of either ends the run (nothing else can be checked without them). */
async function planChecks(lines: CheckLine[]): Promise<Plan | NotRun> {
  let config: GatewayConfig;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    lines.push(line('configuration', 'fail', err.message.split('\n').join('; ')));
    return { checks: ['mappings', 'upstream reachable', 'api key', 'account gates', 'reads'], reason: 'the settings are invalid' };
  }
  try {
    const { reads, payment } = await loadMappingDirectory(config.mappingsDir);
    lines.push(payment
      ? line('mappings', 'ok', `${reads.size} read methods and the payment flow from ${config.mappingsDir}`)
      : line('mappings', 'fail', `${reads.size} read methods from ${config.mappingsDir}, but no payment mapping (payment.yaml)`));
    const resources = new Set<string>();
    for (const m of reads.values()) if (m.kind !== 'static') resources.add(m.source.resource);
    if (payment) for (const r of Object.values(payment.resources)) resources.add(r);
    return { config, resources: [...resources] };
  } catch (err) {
    if (!(err instanceof MappingSetError)) throw err;
    const [heading, ...problems] = err.message.split('\n');
    lines.push(line('mappings', 'fail', `${heading ?? ''} ${problems.map((p) => p.trim()).join('; ')}`.trim()));
    return { checks: ['upstream reachable', 'api key', 'account gates', 'reads'], reason: 'the mappings did not load' };
  }
}

/**
 * Reachability, key, gates and reads, in that order, each from the answers already had where it can: the
 * first resource's read is the reachability probe and tells the key and the gates too, so every resource is
 * read exactly once. keyName: which key is sent (undefined: none).
 */
async function probeUpstream(lines: CheckLine[], resources: string[], prober: Prober, shownUpstream: string, keyName: string | undefined): Promise<NotRun | undefined> {
  const [first, ...rest] = resources;
  if (first === undefined) {
    lines.push(line('upstream reachable', 'warn', 'not probed: the mappings read no v1 resource'));
    return undefined;
  }
  const readChecks = resources.map((r) => `read ${r}`);

  const firstRead = await prober.read(first);
  if (!firstRead.answered) {
    lines.push(line('upstream reachable', 'fail', `${shownUpstream}: ${firstRead.reason}`));
    return { checks: ['api key', 'account gates', ...readChecks], reason: 'the upstream is not reachable' };
  }
  lines.push(line('upstream reachable', 'ok', `${shownUpstream} answers HTTP ${firstRead.status}`));

  // v1 looks at the key before anything else: a 401 means it was refused; a 2xx, 403 or 429 that it was accepted.
  if (keyName === undefined) {
    lines.push(line('api key', 'warn', 'UPSTREAM_API_KEY is not set: every caller must send its own key'));
    if (firstRead.status === 401) return { checks: ['account gates', ...readChecks], reason: 'no key to read with (v1 answers 401 without one)' };
  } else if (firstRead.status === 401) {
    lines.push(line('api key', 'fail', `the key is not valid (${statusAndCode(firstRead)})`));
    return { checks: ['account gates', ...readChecks], reason: 'the key is not valid' };
  } else if ((firstRead.status >= 200 && firstRead.status < 300) || firstRead.status === 403 || firstRead.status === 429) {
    lines.push(line('api key', 'ok', `${keyName} is accepted`));
  } else {
    lines.push(line('api key', 'warn', `${keyName}: not confirmed (read ${first} answered ${statusAndCode(firstRead)})`));
  }

  // An account gate answers every resource alike: one line for the account, not one failure per resource.
  const gate = accountGate(firstRead);
  if (gate !== undefined) {
    lines.push(line('account gates', 'fail', gate));
    return { checks: readChecks, reason: `every v1 call answers ${statusAndCode(firstRead)}` };
  }
  lines.push(line('account gates', 'ok', 'none: the account may use the API'));

  lines.push(readLine(first, firstRead));
  for (const r of rest) lines.push(readLine(r, await prober.read(r)));
  return undefined;
}

export interface CheckOptions {
  /** --api-key: a caller's own key, tested instead of UPSTREAM_API_KEY (never printed). */
  apiKey?: string | undefined;
  /** --skip-upstream: the settings and mappings alone, no v1 call. */
  skipUpstream?: boolean | undefined;
}

/** Runs every check in order; a failure that makes later checks pointless ends the run there. Without a key
 * to test (UPSTREAM_API_KEY or --api-key) against a real upstream, the upstream checks are not made, and that
 * is a failure: a check that could not test the key proves nothing (--skip-upstream asks for less). */
export async function checkGateway(options: CheckOptions = {}): Promise<CheckReport> {
  const lines: CheckLine[] = [];
  const plan = await planChecks(lines);
  if (!('config' in plan)) return { ok: false, checks: lines, notRun: plan };
  if (options.skipUpstream) {
    lines.push(line('upstream', 'warn', 'not checked (--skip-upstream): reachability, the key, the account gates and the reads were not probed'));
    return { ok: lines.every((l) => l.ok), checks: lines };
  }

  let sandbox: RunningSandbox | undefined;
  let prober: Prober | undefined;
  const { config } = plan;
  let apiKey = options.apiKey ?? config.upstreamApiKey;
  if (apiKey === undefined && config.upstreamUrl !== undefined) {
    lines.push(line('api key', 'fail', 'no key given (UPSTREAM_API_KEY or --api-key): the upstream checks were not made (--skip-upstream checks the settings and mappings alone)'));
    return { ok: false, checks: lines };
  }
  let notRun: NotRun | undefined;
  try {
    let upstreamUrl = config.upstreamUrl;
    let shownUpstream = upstreamUrl ?? '';
    let keyName = apiKey === undefined ? undefined : options.apiKey !== undefined ? 'the key of --api-key' : 'UPSTREAM_API_KEY';
    if (upstreamUrl === undefined) {
      sandbox = await startSandbox({ port: 0 });
      upstreamUrl = sandbox.url;
      shownUpstream = `the embedded sandbox (UPSTREAM_URL is not set) at ${sandbox.url}`;
      if (apiKey === undefined) {
        apiKey = SANDBOX_KEYS.primary;
        keyName = "the sandbox's primary demo key";
      }
    }
    prober = new Prober(upstreamUrl, apiKey, config.upstreamTimeoutMs);
    notRun = await probeUpstream(lines, plan.resources, prober, shownUpstream, keyName);
  } finally {
    await prober?.close();
    await sandbox?.close();
  }
  const report: CheckReport = { ok: lines.every((l) => l.ok), checks: lines };
  if (notRun) report.notRun = notRun;
  return report;
}

/** The not-run line of the text output: `api key, account gates, 8 resource reads: <reason>`. */
function notRunText(n: NotRun): string {
  const reads = n.checks.filter((c) => c.startsWith('read '));
  const others = n.checks.filter((c) => !c.startsWith('read '));
  const names = [...others, ...(reads.length > 0 ? [`${reads.length} resource read${reads.length === 1 ? '' : 's'}`] : [])];
  return `${names.join(', ')}: ${n.reason}`;
}

const MARK: Readonly<Record<CheckResult, string>> = { ok: 'ok', warn: 'warn', fail: 'FAIL' };

export async function runCheck(opts: { json?: boolean; apiKey?: string; skipUpstream?: boolean }): Promise<void> {
  const report = await checkGateway({ apiKey: opts.apiKey, skipUpstream: opts.skipUpstream });
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const rows = report.checks.map((l) => [MARK[l.result], l.check, l.detail] as const);
    if (report.notRun) rows.push(['--', 'not run', notRunText(report.notRun)]);
    for (const [mark, check, detail] of rows) process.stdout.write(`${mark.padEnd(4)}  ${check.padEnd(20)} ${detail}\n`);
  }
  process.exitCode = report.ok ? 0 : 1;
}
