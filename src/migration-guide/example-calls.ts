// The runnable example calls of the guide: curl command lines, the legacy call first, then its v1 call. The
// base URLs and the keys are read from shell variables (v1-conventions.ts), never written out, so a guide
// can be shared and its examples run as they are. Values are percent-encoded. Pure.
import { API_KEY_HEADER, EXAMPLE_VARIABLES, V1_PATH_PREFIX } from './v1-conventions.js';

/** `a=1&b=x%40y`, in the order given. */
export function queryString(query: ReadonlyArray<readonly [string, string]>): string {
  return query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
}

const withQuery = (path: string, query: ReadonlyArray<readonly [string, string]>): string =>
  query.length === 0 ? path : `${path}?${queryString(query)}`;

/** A legacy GET, e.g. `/api/clients/0/50`. */
export function legacyGet(path: string, query: ReadonlyArray<readonly [string, string]> = []): string {
  const { legacyBase, legacyKey } = EXAMPLE_VARIABLES;
  return `curl -sS -H "${API_KEY_HEADER}: $${legacyKey}" "$${legacyBase}${withQuery(path, query)}"`;
}

/** A v1 GET of `path` under the v1 prefix, e.g. `/clients` with `offset` and `limit`. */
export function v1Get(path: string, query: ReadonlyArray<readonly [string, string]> = []): string {
  const { v1Base, v1Key } = EXAMPLE_VARIABLES;
  return `curl -sS -H "${API_KEY_HEADER}: $${v1Key}" -H 'Accept: application/json' "$${v1Base}${V1_PATH_PREFIX}${withQuery(path, query)}"`;
}

/** A single-quoted shell word (a quote inside is closed, escaped and reopened). */
const shellQuoted = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** The legacy payment: a form POST with an Idempotency-Key made fresh for this payment. */
export function legacyPost(path: string, fields: ReadonlyArray<readonly [string, string]>): string[] {
  const { legacyBase, legacyKey } = EXAMPLE_VARIABLES;
  return [
    `curl -sS -X POST -H "${API_KEY_HEADER}: $${legacyKey}" -H "Idempotency-Key: $PAYMENT_KEY" \\`,
    ...fields.map(([name, value]) => `  --data-urlencode ${shellQuoted(`${name}=${value}`)} \\`),
    `  "$${legacyBase}${path}"`,
  ];
}

/** A v1 POST of a JSON body. */
export function v1Post(path: string, body: Readonly<Record<string, unknown>>): string[] {
  const { v1Base, v1Key } = EXAMPLE_VARIABLES;
  return [
    `curl -sS -X POST -H "${API_KEY_HEADER}: $${v1Key}" -H 'Content-Type: application/json' -H 'Accept: application/json' \\`,
    `  -d ${shellQuoted(JSON.stringify(body))} \\`,
    `  "$${v1Base}${V1_PATH_PREFIX}${path}"`,
  ];
}

/** Where the examples' calls go: the legacy API's base URL (the gateway's public address) and v1's. */
export interface ExampleBases {
  legacy: string;
  v1: string;
}

/** The lines that set the variables the examples read (the key is asked for, never written). */
export function exampleSetup(bases: ExampleBases): string[] {
  const { legacyBase, legacyKey, v1Base, v1Key } = EXAMPLE_VARIABLES;
  return [
    `export ${legacyBase}=${shellQuoted(bases.legacy)}`,
    `export ${v1Base}=${shellQuoted(bases.v1)}`,
    `read -rs -p 'API key: ' ${legacyKey}; echo; export ${legacyKey}`,
    `export ${v1Key}="$${legacyKey}"   # the same key: v1 takes the key the legacy calls send`,
    `export PAYMENT_KEY="$(uuidgen)"   # one Idempotency-Key per payment, the same on a retry`,
  ];
}
