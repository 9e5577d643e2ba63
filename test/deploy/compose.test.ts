// deploy/compose.yaml (the demo) and deploy/compose.upstream.yaml (a real v1 API on top of it), checked as no
// Docker engine can here: against the Compose Specification's JSON schema (the copy dclint ships), by dclint's
// rules, and by what the schema cannot say: start-up order, what each gateway replica is given (read by the
// gateway's own settings parser), the payment claims' PostgreSQL, the stop grace period against the drain,
// Redis's policy, pinned images, declared volumes, and the settings of .env.example against the variables the
// files read.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { DCLinter } from 'dclint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { loadConfig } from '../../src/gateway/config.js';
import {
  DEPLOY,
  InterpolationError,
  composeProject,
  durationMs,
  readComposeFile,
  readEnvFile,
  variablesOf,
  type ComposeModel,
  type ComposeService,
  type Json,
} from './compose-files.js';
import { KNOWN_VARIABLES, drainMs, gatewayOwnPaths, imageEnvironment, isPinnedImage, routesOutput } from './gateway-facts.js';

const BASE = 'compose.yaml';
const OVERRIDE = 'compose.upstream.yaml';
const ENV_EXAMPLE = '.env.example';

/** .env.example as an operator fills it in: a real secret where it is left empty on purpose. */
const filledEnv = (): Record<string, string> => ({ ...readEnvFile(ENV_EXAMPLE), GATEWAY_SECRET: 'x'.repeat(64), POSTGRES_PASSWORD: 'f'.repeat(64) });

let schema: ValidateFunction;
let ownPaths: string[];
const scratch = mkdtempSync(path.join(tmpdir(), 'deploy-compose-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

beforeAll(async () => {
  const require = createRequire(import.meta.url);
  const file = path.join(path.dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json');
  const spec = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  delete spec.$schema;
  // Strict about the schema (an unknown keyword or format fails compilation), not about its style:
  // strictTypes only asks a schema to repeat `type` beside every keyword, which changes no verdict.
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true });
  schema = ajv.compile(spec);
  ownPaths = await gatewayOwnPaths();
});

function schemaErrors(data: Json): string[] {
  return schema(data) ? [] : (schema.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** The services that run the gateway itself: the image built here, started with its default command (serve). */
function gatewayServices(project: ComposeModel): Array<[string, ComposeService]> {
  return Object.entries(project.services).filter(([, s]) => s.build !== undefined && (s.command === undefined || s.command[0] === 'serve') && s.entrypoint === undefined);
}

/** A replica's environment as its process sees it: the image's ENV, then the service's. */
function processEnv(service: ComposeService): Record<string, string> {
  return { ...imageEnvironment(), ...(service.environment ?? {}) };
}

/** Every replica keeps its payment claims in the project's `postgres` service, as that service is set up, and
 * starts once it is healthy: the URL each replica's own settings parser reads names the service's host and
 * port, and the user, password and database the image creates from its environment. */
function expectClaimsInPostgres(project: ComposeModel): void {
  const postgres = project.services.postgres as ComposeService;
  const env = postgres.environment ?? {};
  const gateways = gatewayServices(project);
  expect(gateways.length).toBeGreaterThan(0);
  for (const [name, service] of gateways) {
    const config = loadConfig(processEnv(service));
    expect(config.idempotencyUrl, name).toBeDefined();
    const url = new URL(config.idempotencyUrl ?? '');
    expect(url.protocol, name).toBe('postgres:');
    expect(url.hostname, name).toBe('postgres');
    expect(url.port, name).toBe('5432');
    expect(decodeURIComponent(url.username), name).toBe(env.POSTGRES_USER);
    expect(decodeURIComponent(url.password), name).toBe(env.POSTGRES_PASSWORD);
    expect(url.pathname, name).toBe(`/${env.POSTGRES_DB ?? ''}`);
    expect(url.search, name).toBe('');
    expect(service.depends_on?.postgres, name).toEqual({ condition: 'service_healthy' });
  }
  // PostgreSQL only knows the password it was made with: a non-empty one, never absent.
  expect(env.POSTGRES_PASSWORD ?? '').not.toBe('');
  // Healthy only once it takes connections over TCP, as the gateways make them, for their user and database
  // (pg_isready over the Unix socket would pass during the image's first-start initialisation).
  const test = postgres.healthcheck?.test ?? [];
  expect(test.slice(0, 2)).toEqual(['CMD', 'pg_isready']);
  const option = (name: string): string | undefined => test[test.indexOf(name) + 1];
  expect(option('--host')).toBe('127.0.0.1');
  expect(option('--username')).toBe(env.POSTGRES_USER);
  expect(option('--dbname')).toBe(env.POSTGRES_DB);
  // Its data in a named volume, where the image keeps it, and nothing published.
  const data = (postgres.volumes ?? []).map((v) => (typeof v === 'string' ? v : `${v.source ?? ''}:${v.target}`)).find((v) => v.endsWith(':/var/lib/postgresql/data'));
  expect(data).toMatch(/^[a-z][a-z0-9-]*:\/var\/lib\/postgresql\/data$/);
  expect(Object.keys(project.volumes ?? {})).toContain(data?.split(':')[0]);
  expect(postgres.ports).toBeUndefined();
}

/** The named volumes the services mount (short syntax `name:/path`, or `type: volume`). */
function namedVolumes(project: ComposeModel): Map<string, string> {
  const used = new Map<string, string>();
  for (const [name, service] of Object.entries(project.services)) {
    for (const v of service.volumes ?? []) {
      const source = typeof v === 'string' ? v.split(':')[0] : v.type === 'volume' ? v.source : undefined;
      if (source !== undefined && /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(source)) used.set(source, name);
    }
  }
  return used;
}

type RuleLevels = Record<string, 0 | 2 | [0 | 2, Record<string, unknown>]>;

/** dclint's rules of substance (security, best practice): run on the resolved projects, where every anchor is
 * merged and every variable interpolated, so each rule sees what Compose runs (the published addresses). */
const SUBSTANCE: RuleLevels = {
  'no-build-and-image': 2,
  'no-duplicate-container-names': 2,
  'no-duplicate-exported-ports': 2,
  'no-quotes-in-volumes': 2,
  'no-unbound-port-interfaces': 2,
  'no-version-field': 2,
  'service-container-name-regex': 2,
  'service-image-require-explicit-tag': 2,
};

/** Its rules of form: run on the files as written. service-keys-order is left out: it cannot place a merge
 * key (`<<`), and the services read in the order what / after what / how. Interpolated addresses are checked
 * on the resolved projects above. */
const FORM: RuleLevels = {
  'require-project-name-field': 2,
  'require-quotes-in-ports': [2, { quoteType: 'double' }],
  'service-dependencies-alphabetical-order': 2,
  'service-keys-order': 0,
  'service-ports-alphabetical-order': 2,
  'services-alphabetical-order': 2,
  'top-level-properties-order': 2,
  'no-unbound-port-interfaces': 0,
};

const ALL_RULES = ['no-build-and-image', 'no-duplicate-container-names', 'no-duplicate-exported-ports', 'no-quotes-in-volumes', 'no-unbound-port-interfaces', 'no-version-field', 'require-project-name-field', 'require-quotes-in-ports', 'service-container-name-regex', 'service-dependencies-alphabetical-order', 'service-image-require-explicit-tag', 'service-keys-order', 'service-ports-alphabetical-order', 'services-alphabetical-order', 'top-level-properties-order'];

function lintFile(file: string, levels: RuleLevels): string[] {
  // A rule left out of the configuration would run at its default level: name every one.
  const rules = Object.fromEntries(ALL_RULES.map((rule) => [rule, levels[rule] ?? 0]));
  const linter = new DCLinter({ rules, quiet: true, debug: false, exclude: [] });
  // dclint's declarations import their own files without extensions, which NodeNext cannot follow: the
  // result's shape is spelt here.
  const results = linter.lintFiles([file], false) as Array<{ messages: Array<{ line: number; rule: string; message: string }> }>;
  return results.flatMap((r) => r.messages.map((m) => `${path.basename(file)}:${m.line} ${m.rule}: ${m.message}`));
}

function lintProject(project: ComposeModel, name: string): string[] {
  const dir = path.join(scratch, name);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'compose.yaml');
  writeFileSync(file, toYaml(project, { lineWidth: 0 }));
  return lintFile(file, SUBSTANCE);
}

describe('the Compose Specification', () => {
  it.each([BASE, OVERRIDE])('%s, as written, follows the schema', (file) => {
    expect(schemaErrors(readComposeFile(file))).toEqual([]);
  });

  it("the demo and the real-upstream projects, interpolated and merged, follow the schema and dclint's rules of substance", () => {
    const demo = composeProject([BASE]);
    const upstream = composeProject([BASE, OVERRIDE], filledEnv());
    expect(schemaErrors(demo as unknown as Json)).toEqual([]);
    expect(schemaErrors(upstream as unknown as Json)).toEqual([]);
    expect(lintProject(demo, 'demo')).toEqual([]);
    expect(lintProject(upstream, 'upstream')).toEqual([]);
  });

  it("both files, as written, follow dclint's rules of form", () => {
    expect(lintFile(path.join(DEPLOY, BASE), FORM)).toEqual([]);
    // The project's name is the base file's.
    expect(lintFile(path.join(DEPLOY, OVERRIDE), { ...FORM, 'require-project-name-field': 0 })).toEqual([]);
  });
});

describe('the demo (one command: docker compose -f deploy/compose.yaml up)', () => {
  const project = composeProject([BASE]);
  const gateways = gatewayServices(project);

  it('runs two gateway replicas, the routes one-shot, the front, PostgreSQL, Redis and the sandbox', () => {
    expect(gateways.map(([name]) => name)).toEqual(['gateway-1', 'gateway-2']);
    expect(Object.keys(project.services).sort()).toEqual(['front', 'gateway-1', 'gateway-2', 'postgres', 'redis', 'routes', 'sandbox']);
  });

  it('starts in order: PostgreSQL, Redis and v1, then the gateways once healthy, then the front once its configuration is written', () => {
    const front = project.services.front;
    expect(front?.depends_on?.routes).toEqual({ condition: 'service_completed_successfully' });
    for (const [name, service] of gateways) {
      expect(front?.depends_on?.[name]?.condition, name).toBe('service_healthy');
      expect(service.depends_on?.postgres?.condition, name).toBe('service_healthy');
      expect(service.depends_on?.redis?.condition, name).toBe('service_healthy');
      expect(service.depends_on?.sandbox?.condition, name).toBe('service_healthy');
    }
    for (const [name, service] of Object.entries(project.services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        const target = project.services[dependency];
        expect(target, `${name} depends on ${dependency}`).toBeDefined();
        if (condition === 'service_healthy') expect(target?.healthcheck?.test, `${dependency}'s healthcheck`).toBeDefined();
        if (condition === 'service_completed_successfully') expect(target?.restart, `${dependency} runs once`).toBe('no');
      }
    }
  });

  it('generates the front configuration with `legacy-gateway routes` into the volume nginx includes', () => {
    const routes = project.services.routes as ComposeService;
    const front = project.services.front as ComposeService;
    const script = (routes.entrypoint ?? []).join(' ');
    expect(script).toMatch(/node dist\/cli\.js routes "\$@" > \/front\/legacy-gateway\.conf\.new && mv \/front\/legacy-gateway\.conf\.new \/front\/legacy-gateway\.conf/);
    expect(routes.volumes).toEqual(['front-config:/front']);
    expect(front.volumes).toEqual([expect.objectContaining({ type: 'volume', source: 'front-config', target: '/etc/nginx/conf.d', read_only: true })]);
    const args = routes.command ?? [];
    const option = (name: string): string | undefined => args[args.indexOf(name) + 1];
    expect(option('--format')).toBe('nginx');
    // Every replica, on the port it listens on, and v1 where the gateways find it.
    expect(option('--gateway')?.split(',')).toEqual(gateways.map(([name, s]) => `http://${name}:${processEnv(s).PORT}`));
    for (const [, s] of gateways) expect(option('--upstream')).toBe(s.environment?.UPSTREAM_URL);
    // nginx listens where the front's port is published, and where its healthcheck knocks.
    expect(front.ports).toEqual([`127.0.0.1:8080:${option('--listen')}`]);
    expect(front.healthcheck?.test.join(' ')).toContain(`/dev/tcp/127.0.0.1/${option('--listen')}`);
    // The command accepts these arguments and sends to each replica and to the sandbox.
    const config = routesOutput(args);
    expect(config).toContain(`listen ${option('--listen') ?? ''};`);
    for (const [name] of gateways) expect(config).toContain(`server ${name}:8080`);
    expect(config).toContain('server sandbox:8081;');
  });

  it('gives every replica only settings the gateway knows, which its own parser accepts, and the same shared state', () => {
    const shared = new Set<string>();
    for (const [name, service] of gateways) {
      const env = processEnv(service);
      for (const variable of Object.keys(service.environment ?? {})) expect(KNOWN_VARIABLES, `${name}: ${variable}`).toContain(variable);
      const config = loadConfig(env);
      expect(config.redisUrl, name).toBe('redis://redis:6379/0');
      expect(config.idempotencyUrl, name).toMatch(/^postgres:\/\//);
      expect(config.gatewaySecret?.length, name).toBeGreaterThanOrEqual(32);
      expect(config.host).toBe('0.0.0.0');
      expect(config.production).toBe(true);
      expect(config.upstreamUrl).toBe('http://sandbox:8081');
      // The duplicate window and the accepted risks are the defaults: nothing of durability is waived.
      expect(config.paymentDuplicateWindowS, name).toBe(600);
      expect(config.idempotencyAcceptRisk, name).toEqual([]);
      shared.add(JSON.stringify([config.idempotencyUrl, config.redisUrl, config.redisKeyPrefix, config.gatewaySecret]));
    }
    expect(shared.size).toBe(1);
  });

  it('checks each replica on /readyz and publishes its metrics on loopback only', () => {
    for (const [name, service] of gateways) {
      const env = processEnv(service);
      const probe = (service.healthcheck?.test ?? []).join(' ');
      const url = /http:\/\/127\.0\.0\.1:(\d+)(\/\w+)/.exec(probe);
      expect(url?.[1], name).toBe(env.PORT);
      expect(url?.[2], name).toBe('/readyz');
      expect(ownPaths).toContain(url?.[2]);
      expect(service.ports?.length, name).toBe(1);
      expect(service.ports?.[0], name).toMatch(new RegExp(`^127\\.0\\.0\\.1:\\d+:${env.METRICS_PORT}$`));
    }
  });

  it('gives each replica a stop grace period past its longest drain (reads, then a payment in flight)', () => {
    for (const [name, service] of gateways) {
      expect(durationMs(service.stop_grace_period ?? '10s'), name).toBeGreaterThan(drainMs(service.environment ?? {}));
    }
  });

  it('keeps the payment claims in the postgres service (IDEMPOTENCY_URL) and starts the gateways once it is healthy', () => {
    expectClaimsInPostgres(project);
    expect(project.services.postgres?.image).toMatch(/^postgres:/);
  });

  it('declares every named volume a service mounts', () => {
    for (const [volume, service] of namedVolumes(project)) expect(Object.keys(project.volumes ?? {}), `${service}: ${volume}`).toContain(volume);
  });

  it('runs Redis with noeviction and AOF on, and pins every image it does not build', () => {
    const redis = (project.services.redis?.command ?? []).join(' ');
    expect(redis).toContain('--maxmemory-policy noeviction');
    expect(redis).toContain('--appendonly yes');
    for (const [name, service] of Object.entries(project.services)) {
      if (service.build !== undefined) continue;
      expect(isPinnedImage(service.image ?? ''), `${name}: ${service.image}`).toBe(true);
    }
  });
});

describe('a real v1 API (compose.upstream.yaml with deploy/.env)', () => {
  it('refuses to start without the settings it needs: the demo values never reach a real upstream', () => {
    expect(() => composeProject([BASE, OVERRIDE], {})).toThrow(InterpolationError);
    for (const name of ['UPSTREAM_URL', 'GATEWAY_SECRET', 'POSTGRES_PASSWORD', 'TLS_CERT_FILE', 'TLS_KEY_FILE']) {
      const env = filledEnv();
      env[name] = '';
      expect(() => composeProject([BASE, OVERRIDE], env), name).toThrow(name);
    }
  });

  it('turns the sandbox off, points the gateways and the front at the upstream, and serves TLS', () => {
    const env = filledEnv();
    const project = composeProject([BASE, OVERRIDE], env);
    expect(project.services.sandbox).toBeUndefined();
    // Compose accepts a dependency on a service of an inactive profile only when it is not required.
    for (const [name, service] of Object.entries(project.services)) {
      for (const [dependency, spec] of Object.entries(service.depends_on ?? {})) {
        if (project.services[dependency] === undefined) expect(spec.required, `${name} -> ${dependency}`).toBe(false);
        else expect(spec.required ?? true, `${name} -> ${dependency}`).toBe(true);
      }
    }
    for (const [name, service] of gatewayServices(project)) {
      const config = loadConfig(processEnv(service));
      expect(config.upstreamUrl, name).toBe(env.UPSTREAM_URL);
      // Empty in .env.example: every caller sends its own key, the sandbox's is never lent.
      expect(config.upstreamApiKey, name).toBeUndefined();
      expect(config.gatewaySecret, name).toBe(env.GATEWAY_SECRET);
    }
    const args = project.services.routes?.command ?? [];
    const option = (o: string): string | undefined => args[args.indexOf(o) + 1];
    expect(option('--upstream')).toBe(env.UPSTREAM_URL);
    const front = project.services.front as ComposeService;
    const mounted = new Map((front.volumes ?? []).map((v) => (typeof v === 'string' ? [v, v] : [v.target, v.source ?? ''])));
    expect(mounted.get(option('--tls-cert') ?? '')).toBe(env.TLS_CERT_FILE);
    expect(mounted.get(option('--tls-key') ?? '')).toBe(env.TLS_KEY_FILE);
    expect(front.ports).toEqual([`${env.FRONT_BIND}:${env.FRONT_PORT}:${option('--listen')}`]);
    const config = routesOutput(args);
    expect(config).toContain(`listen ${option('--listen') ?? ''} ssl;`);
    expect(config).toContain(`ssl_certificate ${option('--tls-cert') ?? ''};`);
    expect(config).toContain(`server ${new URL(env.UPSTREAM_URL ?? '').hostname}:443;`);
  });

  it("keeps the payment claims in the postgres service, with the password from deploy/.env and a volume that is not the demo's", () => {
    const env = filledEnv();
    const project = composeProject([BASE, OVERRIDE], env);
    expectClaimsInPostgres(project);
    const postgres = project.services.postgres as ComposeService;
    expect(postgres.environment?.POSTGRES_PASSWORD).toBe(env.POSTGRES_PASSWORD);
    expect(postgres.volumes).toEqual(['postgres-upstream-data:/var/lib/postgresql/data']);
    for (const [volume, service] of namedVolumes(project)) expect(Object.keys(project.volumes ?? {}), `${service}: ${volume}`).toContain(volume);
  });

  it('brings the sandbox back with --profile demo, for a rehearsal against demo data', () => {
    const project = composeProject([BASE, OVERRIDE], { ...filledEnv(), UPSTREAM_URL: 'http://sandbox:8081' }, ['demo']);
    expect(project.services.sandbox).toBeDefined();
  });

  it('.env.example sets every variable the override requires, and only variables the files read', () => {
    const example = readEnvFile(ENV_EXAMPLE);
    const read = new Map([...variablesOf(BASE), ...variablesOf(OVERRIDE)]);
    for (const name of Object.keys(example)) expect(read.has(name), `${name} is read by no compose file`).toBe(true);
    for (const [name, { required }] of variablesOf(OVERRIDE)) if (required) expect(Object.keys(example)).toContain(name);
  });
});
