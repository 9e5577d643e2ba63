// Where the replay's calls go: a gateway that is already running (--target), or the gateway started in
// this process on a loopback port in front of --upstream or of an embedded sandbox started for the run
// (with its demo key). The operator's settings apply to the in-process gateway (mappings, time zone,
// cache), except where the replay decides: its own upstream and key, no recording of the replay itself,
// no metrics port. Its log lines go to stderr: stdout carries the replay's summary only.
import { redactUrl } from '../../shared/redact.js';
import type { ReplayCommandOptions } from './command-options.js';
import { isLoopbackUrl } from './safety.js';

/** Where the calls go. */
export interface ReplayTarget {
  url: string;
  /** Where `/api/v1/...` can be read with the replay's key: v1 itself, or a running gateway's passthrough. */
  v1Url: string;
  /** What the report calls it. */
  label: string;
  sandboxOrLoopback: boolean;
  /** Key used when none is given (the sandbox's demo key). */
  defaultKey: string | undefined;
  /** Where the HTML report's copy-as-curl lines send a call (credentials removed); undefined: the recorded URL. */
  curlBase: string | undefined;
  close(): Promise<void>;
}

/** The in-process gateway is gone once the report is read: its curl lines go where `legacy-gateway serve`
 * (`npm start`) listens by default. */
export const IN_PROCESS_CURL_BASE = 'http://127.0.0.1:8080';

/** A gateway that is already running (--target): nothing to start or stop. */
export function runningGatewayTarget(url: string): ReplayTarget {
  return {
    url,
    v1Url: url,
    label: redactUrl(url),
    sandboxOrLoopback: isLoopbackUrl(url),
    defaultKey: undefined,
    curlBase: redactUrl(url),
    close: async () => undefined,
  };
}

/**
 * --shadow-pairs: no target at all. Each line answers from itself (shadow-pairs.ts); the URL is never
 * used (the runner opens no connection) and names no real host.
 */
export function shadowPairsTarget(): ReplayTarget {
  return {
    url: 'http://shadow-pairs.invalid',
    v1Url: 'http://shadow-pairs.invalid',
    label: 'the candidate replies recorded in the file (--shadow-pairs)',
    sandboxOrLoopback: false,
    defaultKey: undefined,
    // Nothing was sent: the line is the recorded call, as served.
    curlBase: undefined,
    close: async () => undefined,
  };
}

/** The v1 API behind the in-process gateway. */
interface GatewayUpstream {
  url: string;
  /** What the report calls the target. */
  label: string;
  /** The embedded sandbox or a loopback address: a payment may be replayed there (safety.ts). */
  sandboxOrLoopback: boolean;
  /** Key used when none is given (the sandbox's demo key). */
  defaultKey: string | undefined;
  close(): Promise<void>;
}

/** --upstream, or an embedded sandbox started for this run (with its demo key). */
async function startUpstream(upstream: string | undefined): Promise<GatewayUpstream> {
  if (upstream !== undefined) {
    return {
      url: upstream,
      label: `in-process gateway -> ${redactUrl(upstream)}`,
      sandboxOrLoopback: isLoopbackUrl(upstream),
      defaultKey: undefined,
      close: async () => undefined,
    };
  }
  // Loaded only when used: the sandbox's demo data stays out of runs against a real upstream.
  const { SANDBOX_KEYS, startSandbox } = await import('../../sandbox/index.js');
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  return {
    url: sandbox.url,
    label: 'in-process gateway + embedded sandbox',
    sandboxOrLoopback: true,
    defaultKey: SANDBOX_KEYS.primary,
    close: () => sandbox.close(),
  };
}

/** The gateway's settings, as its own loader validates them (the gateway is loaded only when it runs here). */
type GatewayConfig = import('../../gateway/config.js').GatewayConfig;

/** The settings the replay decides for its own gateway: the operator's values of these are not read. */
const DECIDED_BY_THE_REPLAY = ['PORT', 'HOST', 'RECORD_FILE', 'METRICS_PORT', 'UPSTREAM_URL', 'UPSTREAM_API_KEY'];

/**
 * The operator's settings apply (mappings, time zone, cache, claims), except where the replay decides: its
 * own upstream and key, a loopback ephemeral port, no recording of the replay itself, no metrics port,
 * and quiet logs unless LOG_LEVEL asks for more. The decisions are made on the validated settings, which
 * serve composes from too (start.ts, compose.ts): no environment is rewritten.
 */
function replayGatewayConfig(env: NodeJS.ProcessEnv, upstreamUrl: string, apiKey: string | undefined, load: (env: NodeJS.ProcessEnv) => GatewayConfig): GatewayConfig {
  const operator = load(Object.fromEntries(Object.entries(env).filter(([name]) => !DECIDED_BY_THE_REPLAY.includes(name))));
  return {
    ...operator,
    upstreamUrl,
    upstreamApiKey: apiKey,
    port: 0,
    host: '127.0.0.1',
    hostExplicit: false,
    recordFile: undefined,
    metricsPort: undefined,
    logLevel: env.LOG_LEVEL === undefined ? 'fatal' : operator.logLevel,
  };
}

/** The gateway, in this process, on a loopback port, in front of the upstream (closed after the gateway). */
export async function startInProcessGateway(options: ReplayCommandOptions, env: NodeJS.ProcessEnv): Promise<ReplayTarget> {
  const [{ startGateway }, { loadConfig }, { createLogger }, { pino }] = await Promise.all([
    import('../../gateway/start.js'),
    import('../../gateway/config.js'),
    import('../../gateway/logging.js'),
    import('pino'),
  ]);
  const upstream = await startUpstream(options.upstream);
  try {
    const config = replayGatewayConfig(env, upstream.url, options.apiKey ?? upstream.defaultKey, loadConfig);
    // Gateway log lines go to stderr: stdout carries the replay's summary only.
    const logger = createLogger(config.logLevel, pino.destination({ dest: 2, sync: true }));
    const gateway = await startGateway({ config, logger });
    const close = async (): Promise<void> => {
      try {
        await gateway.close();
      } finally {
        await upstream.close();
      }
    };
    const { label, sandboxOrLoopback, defaultKey } = upstream;
    return { url: gateway.url, v1Url: upstream.url, label, sandboxOrLoopback, defaultKey, curlBase: IN_PROCESS_CURL_BASE, close };
  } catch (err) {
    await upstream.close();
    throw err;
  }
}
