// Lint rules. The mapping engine (src/mapping/) stays pure: it may not import anything that does I/O,
// so every v1 call goes through the port the server injects, and the engine can be tested with plain data.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import floors from './eslint-rules/floors.js';

const IO_MODULES = [
  'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'http', 'node:http', 'https', 'node:https', 'net', 'node:net',
  'tls', 'node:tls', 'dgram', 'node:dgram', 'dns', 'node:dns', 'child_process', 'node:child_process',
  'worker_threads', 'node:worker_threads', 'undici', 'express', 'http-proxy-middleware', 'pino', 'pino-http',
  'lru-cache', 'prom-client',
];

// Every arrow points down. Each floor of src/ imports its own files and those of the floors listed for it,
// nothing else: static imports, `export ... from`, dynamic import() (whose module must then be a plain
// string) and a type's import() alike (eslint-rules/floors.js). A floor not listed (commands/, cli.ts,
// index.ts: where the floors are composed) may import any. legacy-surface/ (the legacy HTTP surface, its
// OpenAPI document and what each call reads and writes) stands above both the mapping engine and the payment
// it describes. The replay uses the gateway as a library user would, through the package's entry (index.ts):
// what it needs to load mappings, read v1 and start a gateway is handed in by commands/replay-gateway.ts.
const FLOORS = {
  shared: [],
  'json-diff': ['shared'],
  mapping: ['shared'],
  payment: ['mapping', 'shared'],
  'legacy-surface': ['payment', 'mapping', 'shared'],
  'migration-guide': ['legacy-surface', 'payment', 'mapping', 'shared'],
  sandbox: ['shared'],
  gateway: ['legacy-surface', 'payment', 'mapping', 'json-diff', 'shared'],
  replay: ['index', 'legacy-surface', 'payment', 'mapping', 'json-diff', 'shared'],
  retirement: ['gateway', 'legacy-surface', 'payment', 'mapping', 'shared'],
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
    },
  },
  {
    // The pure cores: the mapping engine, the payment contract and flow, the legacy surface, the JSON diff, the
    // migration guide's generator, the shared modules, and the replay tool's rules and report builders (its
    // files that read, send or write are excepted below). None reaches gateway/ or sandbox/: the floors say so.
    files: [
      'src/mapping/**/*.ts', 'src/payment/**/*.ts', 'src/legacy-surface/**/*.ts', 'src/json-diff/**/*.ts', 'src/migration-guide/**/*.ts',
      'src/replay/**/*.ts', 'src/shared/**/*.ts',
    ],
    ignores: [
      'src/replay/run/run-command.ts', 'src/replay/recordings/read-recording.ts', 'src/replay/report/files.ts', 'src/replay/run/runner.ts',
      'src/replay/run/pace.ts', 'src/replay/run/progress.ts', 'src/replay/propose/mapping-copy.ts', 'src/replay/run/rule-files.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: IO_MODULES.map((name) => ({ name, message: 'this module is pure: I/O belongs in gateway/ or commands/' })) },
      ],
    },
  },
  {
    // The payment and the mapping engine read no clock and set no timer of their own: time is a port, handed
    // in (the system's supplied by one file), so that tests and hosts drive it.
    files: ['src/payment/**/*.ts', 'src/mapping/**/*.ts'],
    ignores: ['src/payment/claims/system-time.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate'].map((name) => ({
          name,
          message: 'time is a port here: take Timers (payment/claims/system-time.ts) from the caller',
        })),
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'time is a port here: take a Clock (payment/claims/system-time.ts) from the caller' },
        { object: 'performance', property: 'now', message: 'time is a port here: take a Clock from the caller' },
      ],
    },
  },
  {
    // The retirement commands' judgements are pure too; they read the brownout window math, itself pure, from
    // gateway/brownouts/, and the moment they judge from is handed in.
    files: ['src/retirement/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({ name, message: 'this module is pure: I/O belongs in commands/' })),
          patterns: [{ group: ['**/sandbox/**', '**/commands/**', '**/state/**', '**/steps/**'], message: 'a judgement of the usage report reaches no I/O layer' }],
        },
      ],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'the moment is handed in' }],
    },
  },
  {
    // The floors (FLOORS above). The production wing never reaches the embedded sandbox, its test double: the
    // serve command composes them.
    files: ['src/**/*.ts'],
    plugins: { local: { rules: { floors } } },
    rules: { 'local/floors': ['error', { root: 'src', floors: FLOORS }] },
  },
  {
    // One request carrier (src/gateway/edge/request-context.ts): what the gateway knows of a request rides on
    // its context, never on `req` or `res`, and nothing wraps them (a writer of a reply hands what it writes
    // to the context's reply copy, edge/reply-copy.ts). Setting the status, the response's own field, stays.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "AssignmentExpression > MemberExpression.left:has(Identifier[name=/^(req|res)$/]):not([property.name=/^status(Code|Message)$/])",
          message: 'nothing is planted on req or res, nor their methods replaced: it rides on the request context',
        },
        {
          selector:
            "CallExpression[callee.object.name='Object'][callee.property.name=/^(assign|defineProperty|defineProperties|setPrototypeOf)$/] > .arguments:first-child:has(Identifier[name=/^(req|res)$/])",
          message: 'nothing is planted on req or res: it rides on the request context',
        },
      ],
    },
  },
  {
    // Functions a reader can hold in mind at once.
    files: ['src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
