// Reads deploy/compose.yaml (and the override beside it) the way Compose does, for compose.test.ts: YAML merge
// keys (`<<`), then the interpolation of `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}`,
// `${VAR?message}` and `$$`, then an override merged onto the base: maps key by key, `environment` variable by
// variable, `volumes` by target, `ports` as a set, `command`, `entrypoint` and `profiles` replaced, and the
// top-level `volumes` by name. This is no Compose: only what the deploy files use. A key of an override it
// cannot merge is an error, never a guess.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEPLOY = path.join(ROOT, 'deploy');

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface ComposeService {
  image?: string;
  build?: JsonObject | string;
  environment?: Record<string, string>;
  command?: string[];
  entrypoint?: string[];
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  healthcheck?: { test: string[]; interval?: string; timeout?: string; retries?: number; start_period?: string };
  ports?: string[];
  volumes?: Array<string | { type: string; source?: string; target: string; read_only?: boolean }>;
  profiles?: string[];
  stop_grace_period?: string;
  user?: string;
  [key: string]: Json | undefined;
}

export interface ComposeModel {
  name?: string;
  services: Record<string, ComposeService>;
  volumes?: JsonObject;
}

/** A compose file as YAML gives it: merge keys resolved, nothing interpolated. */
export function readComposeFile(file: string): JsonObject {
  const data: unknown = parseYaml(readFileSync(path.join(DEPLOY, file), 'utf8'), { merge: true, uniqueKeys: true });
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error(`${file}: not a YAML mapping`);
  return data as JsonObject;
}

export class InterpolationError extends Error {
  override name = 'InterpolationError';
}

const VARIABLE = /\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** One string, as Compose interpolates it with `env` (the shell's and the --env-file's variables). */
export function interpolate(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(VARIABLE, (whole: string, braced?: string, operator?: string, argument?: string, bare?: string) => {
    if (whole === '$$') return '$';
    const name = braced ?? bare ?? '';
    const value = env[name];
    const unset = value === undefined;
    const empty = unset || value === '';
    switch (operator) {
      case ':-':
        return empty ? (argument ?? '') : value;
      case '-':
        return unset ? (argument ?? '') : value;
      case ':?':
        if (empty) throw new InterpolationError(`${name}: ${argument ?? 'required'}`);
        return value;
      case '?':
        if (unset) throw new InterpolationError(`${name}: ${argument ?? 'required'}`);
        return value;
      default:
        return value ?? '';
    }
  });
}

/** Every string value of a compose file interpolated (keys and the x- extensions' anchors already resolved). */
export function interpolateAll(data: Json, env: Readonly<Record<string, string>>): Json {
  if (typeof data === 'string') return interpolate(data, env);
  if (Array.isArray(data)) return data.map((item) => interpolateAll(item, env));
  if (data !== null && typeof data === 'object') {
    return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, interpolateAll(value, env)]));
  }
  return data;
}

/** The variables a compose file reads, with whether it requires them (`:?` / `?`). */
export function variablesOf(file: string): Map<string, { required: boolean }> {
  const found = new Map<string, { required: boolean }>();
  const text = readFileSync(path.join(DEPLOY, file), 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  for (const match of text.matchAll(VARIABLE)) {
    const name = match[1] ?? match[4];
    if (name === undefined) continue;
    const required = (match[2] ?? '').endsWith('?');
    found.set(name, { required: required || (found.get(name)?.required ?? false) });
  }
  return found;
}

const volumeTarget = (volume: Json): string => {
  if (typeof volume === 'string') return volume.split(':')[1] ?? volume;
  if (volume !== null && typeof volume === 'object' && !Array.isArray(volume) && typeof volume.target === 'string') return volume.target;
  throw new Error(`a volume without a target: ${JSON.stringify(volume)}`);
};

const REPLACED = new Set(['command', 'entrypoint', 'profiles']);

function mergeService(base: JsonObject, override: JsonObject, name: string): JsonObject {
  const merged: JsonObject = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const before = merged[key];
    if (before === undefined || REPLACED.has(key) || (typeof value !== 'object' || value === null)) {
      merged[key] = value;
    } else if (key === 'environment' || key === 'depends_on' || key === 'healthcheck') {
      merged[key] = { ...(before as JsonObject), ...(value as JsonObject) };
    } else if (key === 'volumes') {
      const byTarget = new Map((before as Json[]).map((v) => [volumeTarget(v), v]));
      for (const v of value as Json[]) byTarget.set(volumeTarget(v), v);
      merged[key] = [...byTarget.values()];
    } else if (key === 'ports') {
      merged[key] = [...new Set([...(before as Json[]), ...(value as Json[])])];
    } else {
      throw new Error(`services.${name}.${key}: the override merges a key this reader does not know how Compose merges`);
    }
  }
  return merged;
}

/** The project Compose runs: the files in order, each interpolated with `env`, merged, and the services of
 * inactive profiles dropped (as `docker compose up` without `--profile`). */
export function composeProject(files: readonly string[], env: Readonly<Record<string, string>> = {}, profiles: readonly string[] = []): ComposeModel {
  let project: JsonObject = {};
  for (const file of files) {
    const data = interpolateAll(readComposeFile(file), env) as JsonObject;
    const services = { ...((project.services as JsonObject | undefined) ?? {}) };
    for (const [name, service] of Object.entries((data.services as JsonObject | undefined) ?? {})) {
      const before = services[name] as JsonObject | undefined;
      services[name] = before === undefined ? service : mergeService(before, service as JsonObject, name);
    }
    const volumes = { ...((project.volumes as JsonObject | undefined) ?? {}), ...((data.volumes as JsonObject | undefined) ?? {}) };
    project = { ...project, ...data, services, ...(Object.keys(volumes).length > 0 ? { volumes } : {}) };
  }
  const services = project.services as Record<string, ComposeService>;
  const active = Object.entries(services).filter(([, s]) => (s.profiles ?? []).length === 0 || (s.profiles ?? []).some((p) => profiles.includes(p)));
  return { ...(project as unknown as ComposeModel), services: Object.fromEntries(active) };
}

/** `10s`, `1m30s`, `250ms` in milliseconds. */
export function durationMs(text: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, ns: 0.000001 };
  let total = 0;
  const rest = text.replace(/(\d+(?:\.\d+)?)(h|ms|m|s|us|ns)/g, (_w, amount: string, unit: string) => {
    total += Number(amount) * (units[unit] ?? Number.NaN);
    return '';
  });
  if (rest !== '' || text === '') throw new Error(`not a Compose duration: ${text}`);
  return total;
}

/** An env file (KEY=value lines, # comments) as Compose's --env-file reads it. */
export function readEnvFile(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path.join(DEPLOY, file), 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const eq = trimmed.indexOf('=');
    if (eq < 1) throw new Error(`${file}: not KEY=value: ${trimmed}`);
    env[trimmed.slice(0, eq)] = trimmed.slice(eq + 1);
  }
  return env;
}
