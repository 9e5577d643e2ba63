// The gateway's logger writes each line to standard output as it is logged: a process killed right after
// logging (a crash, an OOM kill) has lost no line.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const LINES = 200;

describe('the logger', () => {
  it('has written every line to standard output by the time it is killed, right after the last one', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lgw-logger-'));
    try {
      const out = path.join(dir, 'stdout');
      const script = [
        `import { createLogger } from ${JSON.stringify(path.join(root, 'dist/gateway/logging.js'))};`,
        `const logger = createLogger('info');`,
        `for (let i = 0; i < ${LINES}; i++) logger.info({ line: i }, 'before the kill');`,
        `process.kill(process.pid, 'SIGKILL');`,
      ].join('\n');
      const fd = openSync(out, 'w');
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', fd, 'pipe'] });
      closeSync(fd);
      expect(run.signal).toBe('SIGKILL');
      const lines = readFileSync(out, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { line: number; msg: string });
      expect(lines.map((l) => l.line)).toEqual(Array.from({ length: LINES }, (_, i) => i));
      expect(lines[0]).toMatchObject({ level: 30, service: 'legacy-gateway', msg: 'before the kill' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
