// deploy/kubernetes/, checked without a cluster: every object against the Kubernetes API's schemas (the
// validators and the TypeScript declarations kubernetes-models generates from the upstream OpenAPI document),
// the kustomization built by `kubectl kustomize`, and what no schema says: the probes name the gateway's own
// paths, the grace period covers the preStop sleep and the drain, the gateway is given only settings it
// knows (and its own parser accepts them), its payment claims go to the PostgreSQL the Secret names (and the
// commands that create the Secret give it the same keys), the mappings ConfigMaps hold exactly the mappings folder, the
// front's generated configuration is wired to the gateway Service, every pod meets the namespace's
// `restricted` Pod Security level, and every image is pinned.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigError, SHIPPED_MAPPINGS_DIR, loadConfig } from '../../src/gateway/config.js';
import { ROOT, type Json, type JsonObject } from './compose-files.js';
import { KNOWN_VARIABLES, drainMs, gatewayOwnPaths, imageEnvironment, isPinnedImage, routesOutput } from './gateway-facts.js';
import { KUBERNETES, at, readManifests, schemaProblems, typeProblems, type KubeObject } from './kubernetes-objects.js';

interface Kustomization {
  resources: string[];
  images: Array<{ name: string; newName: string; newTag: string }>;
  configMapGenerator: Array<{ name: string; literals?: string[]; files?: string[] }>;
}

interface Container extends JsonObject {
  name: string;
}

const kustomization = parseYaml(readFileSync(path.join(KUBERNETES, 'kustomization.yaml'), 'utf8')) as Kustomization;
const resources = kustomization.resources.flatMap((file) => readManifests(file));
const secretExample = readManifests('secret.example.yaml');
const byKind = (kind: string, name: string): KubeObject => {
  const found = resources.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the kustomization's resources`);
  return found;
};
const gateway = byKind('Deployment', 'legacy-gateway');
const front = byKind('Deployment', 'legacy-gateway-front');
const podSpec = (d: KubeObject): JsonObject => at(d, 'spec.template.spec') as JsonObject;
const containers = (d: KubeObject, key = 'containers'): Container[] => (podSpec(d)[key] ?? []) as Container[];
const gatewayContainer = containers(gateway)[0] as Container;

/** A generated ConfigMap's literals as a map. */
function generatedLiterals(name: string): Record<string, string> {
  const generator = kustomization.configMapGenerator.find((g) => g.name === name);
  return Object.fromEntries((generator?.literals ?? []).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/** The gateway container's environment: env, then envFrom (the settings ConfigMap, the example Secret). */
function gatewayEnvironment(secret: Record<string, string>): { names: string[]; env: Record<string, string> } {
  const names: string[] = [];
  const env: Record<string, string> = {};
  for (const source of (gatewayContainer.envFrom ?? []) as JsonObject[]) {
    const configMap = at(source, 'configMapRef.name');
    const secretName = at(source, 'secretRef.name');
    const values = typeof configMap === 'string' ? generatedLiterals(configMap) : typeof secretName === 'string' ? secret : {};
    for (const [name, value] of Object.entries(values)) {
      names.push(name);
      env[name] = value;
    }
  }
  for (const entry of (gatewayContainer.env ?? []) as JsonObject[]) {
    names.push(String(entry.name));
    if (typeof entry.value === 'string') env[String(entry.name)] = entry.value;
  }
  return { names, env };
}

const exampleSecret = (): Record<string, string> => (secretExample[0]?.stringData ?? {}) as Record<string, string>;

let ownPaths: string[];
beforeAll(async () => {
  ownPaths = await gatewayOwnPaths();
});

describe('the Kubernetes API schemas', () => {
  it('every object of the kustomization, and the example Secret, passes the JSON-schema validators', async () => {
    expect(resources.map((o) => o.kind).sort()).toEqual(['Deployment', 'Deployment', 'Namespace', 'PodDisruptionBudget', 'PodDisruptionBudget', 'Service', 'Service']);
    expect(await schemaProblems([...resources, ...secretExample])).toEqual([]);
  });

  it('every object has only the fields the API defines (the TypeScript declarations of the same schemas)', () => {
    expect(typeProblems([...resources, ...secretExample])).toEqual([]);
  });

  it('those checks catch a misspelt field, a field in the wrong object and a wrong type', async () => {
    // TypeScript reports the first unknown field of an object literal: one mistake per copy.
    const misspelt = structuredClone(gateway);
    (containers(misspelt)[0] as Container).readinesProbe = gatewayContainer.readinessProbe as Json;
    const misplaced = structuredClone(gateway);
    (containers(misplaced)[0] as Container).terminationGracePeriodSeconds = 30;
    const problems = typeProblems([misspelt, misplaced]).join('\n');
    expect(problems).toContain("'\"readinesProbe\"' does not exist in type 'IContainer'");
    expect(problems).toContain("'\"terminationGracePeriodSeconds\"' does not exist in type 'IContainer'");
    const mistyped = structuredClone(gateway);
    (containers(mistyped)[0] as Container).ports = [{ containerPort: 'http' }];
    expect((await schemaProblems([mistyped])).join('\n')).toContain('containerPort must be integer');
  });
});

describe('the gateway Deployment', () => {
  it('runs two replicas or more, rolling one new pod in before an old one goes', () => {
    expect(Number(at(gateway, 'spec.replicas'))).toBeGreaterThanOrEqual(2);
    expect(at(gateway, 'spec.strategy.rollingUpdate.maxUnavailable')).toBe(0);
  });

  it('checks readiness on /readyz and liveness on /healthz, on the port the gateway listens on', () => {
    const { env } = gatewayEnvironment(exampleSecret());
    const ports = (gatewayContainer.ports ?? []) as JsonObject[];
    const portOf = (name: Json | undefined): number | undefined => (typeof name === 'number' ? name : (ports.find((p) => p.name === name)?.containerPort as number | undefined));
    expect(at(gatewayContainer, 'readinessProbe.httpGet.path')).toBe('/readyz');
    expect(at(gatewayContainer, 'livenessProbe.httpGet.path')).toBe('/healthz');
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      expect(ownPaths, probe).toContain(at(gatewayContainer, `${probe}.httpGet.path`));
      expect(portOf(at(gatewayContainer, `${probe}.httpGet.port`)), probe).toBe(Number(env.PORT));
    }
    expect(portOf('metrics')).toBe(Number(env.METRICS_PORT));
  });

  it('gives the pod a grace period covering the preStop sleep, the drain and a payment in flight', () => {
    const { env } = gatewayEnvironment(exampleSecret());
    const preStop = Number(at(gatewayContainer, 'lifecycle.preStop.sleep.seconds'));
    expect(preStop).toBeGreaterThanOrEqual(5);
    const grace = Number(podSpec(gateway).terminationGracePeriodSeconds);
    expect(grace * 1000).toBeGreaterThanOrEqual(preStop * 1000 + drainMs(env));
  });

  it('sets only variables the gateway knows, which its own parser accepts once the Secret holds real values', () => {
    const { names, env } = gatewayEnvironment(exampleSecret());
    for (const name of names) expect(KNOWN_VARIABLES, name).toContain(name);
    expect(new Set(names).size).toBe(names.length);
    const real = { ...imageEnvironment(), ...gatewayEnvironment({ ...exampleSecret(), GATEWAY_SECRET: 'x'.repeat(64) }).env };
    const config = loadConfig(real);
    expect(config.redisUrl).toBeDefined();
    expect(config.idempotencyUrl).toMatch(/^postgres:\/\//);
    expect(config.production).toBe(true);
    expect(config.host).toBe('0.0.0.0');
    // The example's placeholders stop the gateway at start, naming the setting: nothing runs on them.
    expect(() => loadConfig({ ...imageEnvironment(), ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...imageEnvironment(), ...env })).toThrow(/^GATEWAY_SECRET /);
  });

  it('keeps its payment claims in the PostgreSQL the Secret names (IDEMPOTENCY_URL), a placeholder password in the example', () => {
    // From the Secret, as REDIS_URL and GATEWAY_SECRET: the URL holds a password, never a ConfigMap's.
    expect(Object.keys(exampleSecret())).toContain('IDEMPOTENCY_URL');
    expect(Object.keys(generatedLiterals('legacy-gateway-settings'))).not.toContain('IDEMPOTENCY_URL');
    expect(((gatewayContainer.envFrom ?? []) as JsonObject[]).map((s) => at(s, 'secretRef.name'))).toContain(secretExample[0]?.metadata.name);
    const url = new URL(exampleSecret().IDEMPOTENCY_URL ?? '');
    expect(url.protocol).toBe('postgres:');
    expect(url.password).toBe('replace-me');
    // No risk of a Redis holding claims is waived, and the duplicate window is the default.
    const config = loadConfig({ ...imageEnvironment(), ...gatewayEnvironment({ ...exampleSecret(), GATEWAY_SECRET: 'x'.repeat(64) }).env });
    expect(config.idempotencyAcceptRisk).toEqual([]);
    expect(config.paymentDuplicateWindowS).toBe(600);
  });

  it("the commands that create the Secret (README.md, secret.example.yaml) give it the example's keys, with URLs the gateway accepts", () => {
    const commands = [
      readFileSync(path.join(KUBERNETES, 'README.md'), 'utf8'),
      readFileSync(path.join(KUBERNETES, 'secret.example.yaml'), 'utf8').replace(/^# ?/gm, ''),
    ].map((text) => /kubectl -n legacy-gateway create secret generic legacy-gateway((?: \\\n|[^\n])*)/.exec(text)?.[1] ?? '');
    for (const command of commands) {
      const literals = Object.fromEntries(
        [...command.matchAll(/--from-literal=([A-Z_]+)=('[^']*'|"[^"]*"|\S+)/g)].map(([, name, value]) => [name ?? '', (value ?? '').replace(/^['"]|['"]$/g, '')]),
      );
      expect(Object.keys(literals).sort(), command).toEqual(Object.keys(exampleSecret()).sort());
      const config = loadConfig({ ...imageEnvironment(), ...gatewayEnvironment({ ...literals, GATEWAY_SECRET: 'x'.repeat(64) }).env });
      expect(config.idempotencyUrl, command).toMatch(/^postgres:\/\//);
      expect(config.redisUrl, command).toMatch(/^rediss?:\/\//);
    }
  });

  it('requests the measured peak memory (Node 24) and limits it with room, as a non-root user on a read-only root', () => {
    const mebibytes = (q: Json | undefined): number => Number(/^(\d+)Mi$/.exec(String(q))?.[1] ?? Number.NaN);
    const request = mebibytes(at(gatewayContainer, 'resources.requests.memory'));
    const limit = mebibytes(at(gatewayContainer, 'resources.limits.memory'));
    // 165 MB measured at the benchmark's peak, 20 MB more on Node 24: 185 MB = 176.4 MiB.
    expect(request).toBeGreaterThanOrEqual(177);
    expect(limit).toBeGreaterThanOrEqual(2 * request);
    expect(at(gatewayContainer, 'securityContext.readOnlyRootFilesystem')).toBe(true);
    // The gateway writes nothing unless RECORD_FILE is set, and then it needs a volume of its own.
    expect(gatewayEnvironment(exampleSecret()).names).not.toContain('RECORD_FILE');
  });

  it('is selected by its Service and its PodDisruptionBudget, which always leaves a replica up', () => {
    const labels = at(gateway, 'spec.template.metadata.labels') as Record<string, string>;
    const service = byKind('Service', 'legacy-gateway');
    const pdb = byKind('PodDisruptionBudget', 'legacy-gateway');
    for (const selector of [at(service, 'spec.selector'), at(pdb, 'spec.selector.matchLabels'), at(gateway, 'spec.selector.matchLabels')]) {
      expect(labels).toMatchObject(selector as Record<string, string>);
    }
    const named = new Set(((gatewayContainer.ports ?? []) as JsonObject[]).map((p) => p.name));
    for (const port of (at(service, 'spec.ports') ?? []) as JsonObject[]) expect(named, String(port.name)).toContain(port.targetPort);
    expect(Number(at(pdb, 'spec.maxUnavailable'))).toBeLessThan(Number(at(gateway, 'spec.replicas')));
  });
});

describe('the mappings ConfigMaps', () => {
  const folder = (dir: string): string[] => readdirSync(path.join(ROOT, dir)).filter((n) => /\.(ya?ml|json)$/.test(n)).sort();
  const generated = (name: string): string[] => (kustomization.configMapGenerator.find((g) => g.name === name)?.files ?? []).map((f) => path.relative(ROOT, path.resolve(KUBERNETES, f)));

  it('hold exactly the files of mappings/ and mappings/records/', () => {
    expect(generated('legacy-gateway-mappings')).toEqual(folder('mappings').map((n) => `mappings/${n}`));
    expect(generated('legacy-gateway-mapping-records')).toEqual(folder('mappings/records').map((n) => `mappings/records/${n}`));
  });

  it('are mounted at MAPPINGS_DIR and MAPPINGS_DIR/records, in the gateway and in the front\'s generator alike', () => {
    const dir = gatewayEnvironment(exampleSecret()).env.MAPPINGS_DIR;
    expect(dir).toBeDefined();
    const routes = containers(front, 'initContainers').find((c) => c.name === 'routes') as Container;
    expect(String((routes.command as string[]).join(' '))).toContain(`--mappings ${dir}`);
    for (const [deployment, container] of [[gateway, gatewayContainer], [front, routes]] as const) {
      const volumes = new Map(((podSpec(deployment).volumes ?? []) as JsonObject[]).map((v) => [v.name, at(v, 'configMap.name')]));
      const mounts = new Map(((container.volumeMounts ?? []) as JsonObject[]).map((m) => [m.mountPath, volumes.get(m.name)]));
      expect(mounts.get(dir ?? ''), `${deployment.metadata.name}: ${dir}`).toBe('legacy-gateway-mappings');
      expect(mounts.get(`${dir ?? ''}/records`), `${deployment.metadata.name}: ${dir}/records`).toBe('legacy-gateway-mapping-records');
    }
  });
});

describe('the nginx front', () => {
  const routes = containers(front, 'initContainers').find((c) => c.name === 'routes') as Container;
  const nginx = containers(front).find((c) => c.name === 'nginx') as Container;
  const script = (routes.command as string[]).join(' ');
  const option = (name: string): string | undefined => new RegExp(`${name} ("[^"]*"|\\S+)`).exec(script)?.[1]?.replace(/"/g, '');
  const initEnv = new Map(((routes.env ?? []) as JsonObject[]).map((e) => [String(e.name), e]));

  it('generates its configuration with `legacy-gateway routes` into the folder nginx includes', () => {
    expect(script).toMatch(/^sh -c exec node dist\/cli\.js routes --format nginx /);
    expect(script).toMatch(/> \/etc\/nginx\/conf\.d\/legacy-gateway\.conf$/);
    const shared = (c: Container): string | undefined => ((c.volumeMounts ?? []) as JsonObject[]).find((m) => m.mountPath === '/etc/nginx/conf.d')?.name as string | undefined;
    expect(shared(routes)).toBeDefined();
    expect(shared(nginx)).toBe(shared(routes));
    // Every variable the script reads is defined beside it.
    for (const [, name] of script.matchAll(/\$([A-Z_][A-Z0-9_]*)/g)) expect(initEnv.has(name ?? ''), name).toBe(true);
  });

  it('sends to the gateway Service on its http port, and to v1 where the gateway finds it', () => {
    const service = byKind('Service', 'legacy-gateway');
    const http = ((at(service, 'spec.ports') ?? []) as JsonObject[]).find((p) => p.name === 'http');
    expect(at(initEnv.get('GATEWAY_URL'), 'value')).toBe(`http://${service.metadata.name}:${String(http?.port)}`);
    expect(option('--gateway')).toBe('$GATEWAY_URL');
    expect(option('--upstream')).toBe('$UPSTREAM_URL');
    expect(at(initEnv.get('UPSTREAM_URL'), 'valueFrom.configMapKeyRef')).toEqual({ name: 'legacy-gateway-settings', key: 'UPSTREAM_URL' });
    expect(((gatewayContainer.envFrom ?? []) as JsonObject[]).map((s) => at(s, 'configMapRef.name'))).toContain('legacy-gateway-settings');
  });

  it('listens with TLS where its Service sends, the certificate from the mounted Secret', () => {
    const port = ((nginx.ports ?? []) as JsonObject[]).find((p) => p.name === 'https');
    expect(option('--listen')).toBe(String(port?.containerPort));
    const frontService = byKind('Service', 'legacy-gateway-front');
    expect(((at(frontService, 'spec.ports') ?? []) as JsonObject[]).map((p) => p.targetPort)).toEqual(['https']);
    const tlsMount = ((nginx.volumeMounts ?? []) as JsonObject[]).find((m) => m.name === 'tls');
    for (const file of [option('--tls-cert'), option('--tls-key')]) expect(file?.startsWith(`${String(tlsMount?.mountPath)}/`), file).toBe(true);
    // The command accepts the script's arguments (its variables given their values, the shipped mappings
    // standing in for the mounted ones), and sends to the gateway Service.
    const args = /routes (.*) >/.exec(script)?.[1]?.split(/\s+/).map((a) => a.replace(/"/g, '')) ?? [];
    const values: Record<string, string> = { $GATEWAY_URL: String(at(initEnv.get('GATEWAY_URL'), 'value')), $UPSTREAM_URL: generatedLiterals('legacy-gateway-settings').UPSTREAM_URL ?? '' };
    const config = routesOutput(args.map((a) => values[a] ?? (a === option('--mappings') ? SHIPPED_MAPPINGS_DIR : a)));
    expect(config).toContain(`listen ${String(port?.containerPort)} ssl;`);
    expect(config).toContain('server legacy-gateway:8080');
    const tlsVolume = ((podSpec(front).volumes ?? []) as JsonObject[]).find((v) => v.name === 'tls');
    expect(at(tlsVolume, 'secret.secretName')).toBe('legacy-gateway-front-tls');
  });

  it('gives the pod a grace period covering its preStop sleep and a payment the gateway finishes', () => {
    const { env } = gatewayEnvironment(exampleSecret());
    const preStop = Number(at(nginx, 'lifecycle.preStop.sleep.seconds'));
    expect(Number(podSpec(front).terminationGracePeriodSeconds) * 1000).toBeGreaterThanOrEqual(preStop * 1000 + drainMs(env));
  });
});

describe('every pod', () => {
  const deployments = resources.filter((o) => o.kind === 'Deployment');

  it('meets the namespace\'s Pod Security level (restricted): non-root by number, no privilege, no capability, RuntimeDefault seccomp', () => {
    expect(at(byKind('Namespace', 'legacy-gateway'), 'metadata.labels')).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    for (const d of deployments) {
      const spec = podSpec(d);
      expect(at(spec, 'securityContext.runAsNonRoot'), d.metadata.name).toBe(true);
      expect(at(spec, 'securityContext.seccompProfile.type'), d.metadata.name).toBe('RuntimeDefault');
      for (const c of [...containers(d, 'initContainers'), ...containers(d)]) {
        const where = `${d.metadata.name}/${c.name}`;
        const user = Number(at(c, 'securityContext.runAsUser') ?? at(spec, 'securityContext.runAsUser'));
        expect(user, where).toBeGreaterThan(0);
        expect(at(c, 'securityContext.allowPrivilegeEscalation'), where).toBe(false);
        expect(at(c, 'securityContext.readOnlyRootFilesystem'), where).toBe(true);
        expect(at(c, 'securityContext.capabilities.drop'), where).toEqual(['ALL']);
        expect(at(c, 'securityContext.capabilities.add'), where).toBeUndefined();
        expect(at(c, 'resources.limits.memory'), where).toBeDefined();
        expect(at(c, 'resources.requests.memory'), where).toBeDefined();
      }
    }
  });

  it('runs pinned images: nginx by version, the gateway at the tag the kustomization sets', () => {
    const images = new Map(kustomization.images.map((i) => [i.name, `${i.newName}:${i.newTag}`]));
    for (const d of deployments) {
      for (const c of [...containers(d, 'initContainers'), ...containers(d)]) {
        const image = images.get(String(c.image)) ?? String(c.image);
        expect(isPinnedImage(image), `${d.metadata.name}/${c.name}: ${image}`).toBe(true);
      }
    }
  });

  it('is spread over nodes and disrupted one at a time', () => {
    for (const d of deployments) {
      expect(at(podSpec(d), 'topologySpreadConstraints'), d.metadata.name).toBeDefined();
      const pdb = resources.find((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === d.metadata.name);
      expect(at(pdb, 'spec.maxUnavailable'), d.metadata.name).toBe(1);
    }
  });
});
