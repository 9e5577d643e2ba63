// The runbooks in docs/ and the READMEs in deploy/ hold commands and configuration an operator copies: each is
// checked against what it names, and so are the README and the other pages of docs/. The canary's nginx
// configuration passes `nginx -t` (its host names and certificate files replaced by ones this machine has),
// the sidecar's systemd unit passes `systemd-analyze verify` and starts node as `npm start` does, the pod
// sidecar passes the Kubernetes API's schemas, the metrics and label values named exist in the gateway, the
// replay gate's number is the fixture's count of planted differences, every compose service a command names
// exists, and every link points at a file of the repository (and at a heading of it, when it names one).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { IDEMPOTENCY_EVENTS } from '../../src/gateway/metrics/gateway-metrics.js';
import { CLAIMS_TABLE } from '../../src/gateway/state/claims/claims-postgres.js';
import { checkNginxConfig } from '../helpers/nginx.js';
import { ROOT, composeProject, type JsonObject } from './compose-files.js';
import { KNOWN_VARIABLES, gatewayOwnPaths, nodeFlagsOfStartScript } from './gateway-facts.js';
import { at, schemaProblems, typeProblems, type KubeObject } from './kubernetes-objects.js';

// The README, every page of docs/ (the runbooks and the reference pages), and the deploy/ READMEs.
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`),
  'deploy/README.md',
  'deploy/kubernetes/README.md',
];
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const scratch = mkdtempSync(path.join(tmpdir(), 'deploy-docs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The fenced blocks of a markdown file in one language (`nginx`, `ini`, `yaml`, `sh`), a list item's
 * indentation taken off. */
function blocks(file: string, language: string): string[] {
  const fences = read(file).matchAll(new RegExp(`^( *)\`\`\`${language}\\n([\\s\\S]*?)^\\1\`\`\`$`, 'gm'));
  return [...fences].map(([, indent = '', body = '']) => body.split('\n').map((line) => line.slice(indent.length)).join('\n'));
}

/** A self-signed certificate and key for `nginx -t`, made once. */
const certificate = (() => {
  let made: { cert: string; key: string } | undefined;
  return () => {
    if (made) return made;
    const cert = path.join(scratch, 'cert.pem');
    const key = path.join(scratch, 'key.pem');
    const run = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=api.old.example.com', '-keyout', key, '-out', cert], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`openssl: ${run.stderr}`);
    made = { cert, key };
    return made;
  };
})();

/** An nginx block of the docs, made checkable here: host names this machine cannot resolve become 127.0.0.1,
 * and the certificate files the self-signed ones. Nothing else changes. */
function checkable(config: string): string {
  const { cert, key } = certificate();
  return config
    .replace(/(server\s+)[A-Za-z][A-Za-z0-9.-]*(:\d+)/g, '$1127.0.0.1$2')
    .replace(/(ssl_certificate|proxy_ssl_trusted_certificate)\s+\S+;/g, `$1 ${cert};`)
    .replace(/ssl_certificate_key\s+\S+;/g, `ssl_certificate_key ${key};`);
}

describe('docs/dns-swap.md', () => {
  const nginxBlocks = blocks('docs/dns-swap.md', 'nginx');
  const canary = nginxBlocks.find((b) => b.includes('server {')) ?? '';
  const rollback = nginxBlocks.find((b) => !b.includes('server {')) ?? '';

  it('the canary configuration, and the same with the rollback share, pass nginx -t', () => {
    expect(canary).toContain('split_clients');
    const run = checkNginxConfig(checkable(canary));
    expect(run.output).toContain('test is successful');
    expect(run.code).toBe(0);
    const block = /split_clients "[^"]*" \$\w+ \{[^}]*\}/;
    expect(rollback.trim()).toMatch(block);
    const rolledBack = canary.replace(block, () => rollback.trim());
    expect(block.exec(rolledBack)?.[0]).not.toContain('gateway_front');
    const again = checkNginxConfig(checkable(rolledBack));
    expect(again.output).toContain('test is successful');
  });

  it('the canary rehearsal on the demo passes nginx -t and names services of the demo', () => {
    const rehearsal = /cat > \/tmp\/legacy-canary\.conf <<'EOF'\n([\s\S]*?)\nEOF/.exec(read('docs/dns-swap.md'))?.[1] ?? '';
    const services = Object.keys(composeProject(['compose.yaml']).services);
    for (const [, host] of rehearsal.matchAll(/server\s+([a-z0-9-]+):\d+/g)) expect(services).toContain(host);
    const run = checkNginxConfig(checkable(rehearsal));
    expect(run.output).toContain('test is successful');
  });

  it('gates the replay at the number of differences the recording plants', () => {
    const fixture = read('test/fixtures/replay/README.md');
    const planted = fixture.split('\n').filter((line) => /^\| \d+ \|.*\| different: /.test(line)).length;
    const gate = /legacy-traffic\.har[\s\S]*?--max-differences (\d+)/.exec(read('docs/dns-swap.md'))?.[1];
    expect(planted).toBeGreaterThan(0);
    expect(Number(gate)).toBe(planted);
    expect(read('docs/dns-swap.md')).toContain(`exactly ${planted} differences`);
  });
});

describe('docs/sidecar.md', () => {
  const unit = blocks('docs/sidecar.md', 'ini')[0] ?? '';

  it('runs node as `npm start` does, on loopback, and drains within its stop timeout', () => {
    const exec = /^ExecStart=(\S+) (.*)$/m.exec(unit);
    expect(exec?.[1]).toBe('/usr/bin/node');
    const words = (exec?.[2] ?? '').split(' ');
    expect(words.filter((w) => w.startsWith('--'))).toEqual(nodeFlagsOfStartScript());
    expect(words.slice(-2)).toEqual(['/opt/legacy-gateway/node_modules/legacy-gateway/dist/cli.js', 'serve']);
    expect(unit).toMatch(/^Environment=.*\bHOST=127\.0\.0\.1\b/m);
    expect(unit).toMatch(/^RestartPreventExitStatus=2$/m);
    expect(Number(/^TimeoutStopSec=(\d+)s$/m.exec(unit)?.[1])).toBeGreaterThanOrEqual(150);
    // The rehearsal starts the same command.
    expect(read('docs/sidecar.md')).toContain(`node ${nodeFlagsOfStartScript().join(' ')} dist/cli.js serve`);
  });

  it('its unit passes systemd-analyze verify without a word', () => {
    const file = path.join(scratch, 'legacy-gateway.service');
    writeFileSync(file, unit);
    const run = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`).toBe('');
    expect(run.status).toBe(0);
  });

  it('its pod sidecar passes the Kubernetes API schemas, listens on loopback only, and probes a path the gateway answers', async () => {
    const objects = blocks('docs/sidecar.md', 'yaml').flatMap((b) => parseAllDocuments(b).map((d) => d.toJS() as KubeObject));
    expect(objects.map((o) => o.kind)).toEqual(['Deployment']);
    expect(await schemaProblems(objects)).toEqual([]);
    expect(typeProblems(objects)).toEqual([]);
    const sidecar = ((at(objects[0], 'spec.template.spec.initContainers') ?? []) as JsonObject[])[0];
    expect(sidecar?.restartPolicy).toBe('Always');
    const env = ((sidecar?.env ?? []) as JsonObject[]).map((e) => [String(e.name), e.value]);
    for (const [name] of env) expect(KNOWN_VARIABLES).toContain(name);
    expect(Object.fromEntries(env)).toMatchObject({ HOST: '127.0.0.1', PORT: '8080' });
    const ownPaths = await gatewayOwnPaths();
    for (const probe of ['startupProbe', 'livenessProbe']) {
      const command = ((at(sidecar, `${probe}.exec.command`) ?? []) as string[]).join(' ');
      const url = /http:\/\/127\.0\.0\.1:8080(\/\w+)/.exec(command);
      expect(ownPaths, probe).toContain(url?.[1]);
    }
  });
});

describe('every runbook', () => {
  const metricsSource = readdirSync(path.join(ROOT, 'src/gateway/metrics'))
    .map((f) => readFileSync(path.join(ROOT, 'src/gateway/metrics', f), 'utf8'))
    .join('\n');

  it('names only metrics the gateway exports, with label values it uses', () => {
    for (const file of DOCS) {
      const text = read(file);
      for (const [name] of text.matchAll(/legacy_gateway_[a-z_]+/g)) {
        // The payment claims' table in PostgreSQL shares the prefix: not a metric.
        if (name === CLAIMS_TABLE) continue;
        const base = name.replace(/_(bucket|sum|count)$/, '');
        expect(metricsSource, `${file}: ${name}`).toContain(`name: '${base}'`);
      }
      for (const [, event] of text.matchAll(/idempotency_events_total[^\n]*?event=~?"([a-z_|]+)"/g)) {
        for (const value of (event ?? '').split('|')) expect(IDEMPOTENCY_EVENTS, `${file}: ${value}`).toContain(value);
      }
    }
  });

  it('names only services of the compose project in its docker compose commands', () => {
    const services = new Set([...Object.keys(composeProject(['compose.yaml']).services)]);
    for (const file of DOCS) {
      for (const [, verb, rest] of read(file).matchAll(/docker compose -f deploy\/compose\.yaml (exec|stop|start|restart|logs|ps)((?: -[A-Za-z]+)*(?: [a-z][a-z0-9-]*)*)/g)) {
        const names = (rest ?? '').trim().split(/\s+/).filter((w) => w !== '' && !w.startsWith('-'));
        // exec and ps take one service, then a command.
        const named = verb === 'exec' || verb === 'ps' ? names.slice(0, 1) : names;
        for (const name of named) expect(services, `${file}: docker compose ${verb} ${name}`).toContain(name);
      }
    }
  });

  it('links only to files of the repository, and to headings those pages have', () => {
    for (const file of DOCS) {
      for (const [, target = '', anchor] of read(file).matchAll(/\]\(([^)#\s]*)(?:#([^)\s]*))?\)/g)) {
        if (/^https?:/.test(target)) continue;
        const linked = path.resolve(ROOT, path.dirname(file), target === '' ? path.basename(file) : target);
        expect(existsSync(linked), `${file}: ${target}`).toBe(true);
        if (anchor !== undefined && linked.endsWith('.md')) expect(headingAnchors(linked), `${file}: ${target}#${anchor}`).toContain(anchor);
      }
    }
  });
});

/** The anchors a markdown renderer gives the headings of a file (outside code blocks): lower case, backticks
 * and punctuation dropped, spaces as hyphens, a repeated heading numbered from -1. */
function headingAnchors(file: string): string[] {
  const seen = new Map<string, number>();
  const prose = readFileSync(file, 'utf8').replace(/^( *)```[\s\S]*?^\1```$/gm, '');
  return [...prose.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading = '']) => {
    const slug = heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').trim().replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    return count === 0 ? slug : `${slug}-${count}`;
  });
}
