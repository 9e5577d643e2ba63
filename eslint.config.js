// Lint rules. The mapping engine (src/mapping/) stays pure: it may not import anything that does I/O,
// so every v1 call goes through the port the server injects, and the engine can be tested with plain data.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const IO_MODULES = [
  'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'http', 'node:http', 'https', 'node:https', 'net', 'node:net',
  'tls', 'node:tls', 'dgram', 'node:dgram', 'dns', 'node:dns', 'child_process', 'node:child_process',
  'worker_threads', 'node:worker_threads', 'undici', 'express', 'http-proxy-middleware', 'pino', 'pino-http',
  'lru-cache', 'prom-client', 'yaml',
];

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
    files: ['src/mapping/**/*.ts', 'src/payment/decide*.ts', 'src/replay/diff*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({ name, message: 'this module is pure: I/O belongs in server/, upstream/ or loaders/' })),
          patterns: [
            { group: ['**/server/**', '**/upstream/**', '**/loaders/**', '**/sandbox/**'], message: 'the engine must not reach into the I/O layers' },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
