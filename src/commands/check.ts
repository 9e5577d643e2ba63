// `legacy-gateway check`: before a switch, probes what the gateway will depend on: the mappings load,
// the upstream answers, and the API key may read every v1 resource the mappings use (401 invalid key,
// 403 scope or account gate, 429 budget). One small GET per resource; it never writes and never prints a key.
import { ConfigError, loadConfig } from '../gateway/config.js';
import { GatewayError } from '../shared/errors.js';
import { loadMappingDirectory } from '../gateway/loaders/mapping-files.js';
import { MappingSetError } from '../mapping/mapping-set.js';
import { SANDBOX_KEYS, startSandbox } from '../sandbox/index.js';
import { V1Client } from '../gateway/upstream/v1-client.js';

export interface CheckLine {
  check: string;
  ok: boolean;
  detail: string;
}

async function probe(client: V1Client, resource: string, apiKey: string | undefined): Promise<CheckLine> {
  const started = performance.now();
  try {
    await client.getJson({ path: `/${resource}`, query: { limit: '1' }, apiKey });
    return { check: `read ${resource}`, ok: true, detail: `HTTP 200 in ${Math.round(performance.now() - started)} ms` };
  } catch (err) {
    const e = err instanceof GatewayError ? err : new GatewayError('LGW_INTERNAL', 'unexpected failure');
    const code = e.upstreamCode ? ` ${e.upstreamCode}` : '';
    return { check: `read ${resource}`, ok: false, detail: `${e.status}${code}: ${e.message}` };
  }
}

export async function runCheck(opts: { json?: boolean }): Promise<void> {
  const lines: CheckLine[] = [];
  let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
  let client: V1Client | undefined;
  try {
    const config = loadConfig(process.env);
    const { reads, payment } = await loadMappingDirectory(config.mappingsDir);
    lines.push({ check: 'mappings', ok: payment !== undefined, detail: `${reads.size} read methods${payment ? ' and the payment flow' : ', no payment.yaml'} from ${config.mappingsDir}` });

    let upstreamUrl = config.upstreamUrl;
    let apiKey = config.upstreamApiKey;
    if (upstreamUrl === undefined) {
      sandbox = await startSandbox({ port: 0 });
      upstreamUrl = sandbox.url;
      apiKey ??= SANDBOX_KEYS.primary;
      lines.push({ check: 'upstream', ok: true, detail: 'UPSTREAM_URL is not set: checking the embedded sandbox' });
    }
    lines.push({ check: 'api key', ok: true, detail:
        apiKey === undefined
          ? 'UPSTREAM_API_KEY is not set: every caller must send its own key'
          : apiKey === config.upstreamApiKey
            ? 'UPSTREAM_API_KEY is set'
            : "the sandbox's demo key" });

    client = new V1Client({ upstreamUrl, timeoutMs: config.upstreamTimeoutMs });
    const resources = new Set<string>();
    for (const m of reads.values()) if (m.kind !== 'static') resources.add(m.source.resource);
    if (payment) for (const r of Object.values(payment.resources)) resources.add(r);
    const first = await probe(client, [...resources][0] ?? 'clients', apiKey);
    const reachable = !/^(502|504) /.test(first.detail);
    lines.push({ check: 'upstream reachable', ok: reachable, detail: reachable ? `${upstreamUrl.replace(/\/\/[^/]*@/, '//')} answers` : first.detail });
    if (reachable) {
      lines.push(first);
      for (const r of [...resources].slice(1)) lines.push(await probe(client, r, apiKey));
    }
  } catch (err) {
    if (!(err instanceof ConfigError || err instanceof MappingSetError)) throw err;
    lines.push({ check: err instanceof ConfigError ? 'configuration' : 'mappings', ok: false, detail: err.message });
  } finally {
    await client?.close();
    await sandbox?.close();
  }
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ ok: lines.every((l) => l.ok), checks: lines }, null, 2)}\n`);
  } else {
    for (const l of lines) process.stdout.write(`${l.ok ? 'ok  ' : 'FAIL'}  ${l.check.padEnd(20)} ${l.detail}\n`);
  }
  process.exitCode = lines.every((l) => l.ok) ? 0 : 1;
}
