// The gateway as the replay uses it (src/replay/run/gateway-port.ts), composed here so that the replay imports
// nothing of src/gateway/ or src/sandbox/: the mappings loaded as serve loads them, v1 read with the gateway's
// own client, and the gateway started in this process on a loopback port in front of --upstream or of an
// embedded sandbox started for the run (with its demo key). The operator's settings apply to the in-process
// gateway (mappings, time zone, cache), except where the replay decides: its own upstream and key, no
// recording of the replay itself, no metrics port. Its log lines go to stderr: stdout carries the replay's
// summary only. The gateway and the sandbox are loaded only when a run starts them.
import { SHIPPED_MAPPINGS_DIR, type GatewayConfig } from '../gateway/config.js';
import { loadMappingDirectory } from '../gateway/loaders/mapping-files.js';
import { V1Client } from '../gateway/upstream/v1-client.js';
import type { ReplayCommandOptions } from '../replay/run/command-options.js';
import type { ReplayGateway, V1Reads } from '../replay/run/gateway-port.js';
import { isLoopbackUrl } from '../replay/run/safety.js';
import { IN_PROCESS_CURL_BASE, type ReplayTarget } from '../replay/run/target.js';
import { redactUrl } from '../shared/redact.js';

/** The v1 API behind the in-process gateway. */
interface GatewayUpstream {
  url: string;
  /** What the report calls the target. */
  label: string;
  /** The embedded sandbox or a loopback address: a payment may be replayed there (replay/run/safety.ts). */
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
  const { SANDBOX_KEYS, startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  return {
    url: sandbox.url,
    label: 'in-process gateway + embedded sandbox',
    sandboxOrLoopback: true,
    defaultKey: SANDBOX_KEYS.primary,
    close: () => sandbox.close(),
  };
}

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
async function startInProcessGateway(options: ReplayCommandOptions, env: NodeJS.ProcessEnv): Promise<ReplayTarget> {
  const [{ startGateway }, { loadConfig }, { createLogger }, { pino }] = await Promise.all([
    import('../gateway/start.js'),
    import('../gateway/config.js'),
    import('../gateway/logging.js'),
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

/** The gateway's own v1 client (same URL rules, same timeout, the key only in X-API-KEY). */
function v1Reads(baseUrl: string, timeoutMs: number): V1Reads {
  const client = new V1Client({ upstreamUrl: baseUrl, timeoutMs, connections: 8 });
  return {
    getJson: (path, query, apiKey) => client.getJson({ path, query, apiKey }).then((r) => r.body.take().value),
    close: () => client.close(),
  };
}

export const replayGateway: ReplayGateway = {
  shippedMappingsDir: SHIPPED_MAPPINGS_DIR,
  loadMappings: loadMappingDirectory,
  v1Reads,
  startInProcess: startInProcessGateway,
};
