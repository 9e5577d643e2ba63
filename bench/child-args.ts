// Shared by the bench's child servers: reading `--name value` arguments, and stopping by themselves
// (after --lifetime seconds, or when the bench that started them goes away), so none outlives a run.
import type http from 'node:http';

export function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

export function stopAfter(server: http.Server): void {
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  setTimeout(stop, Number(argValue('--lifetime', '120')) * 1000).unref();
  process.once('SIGTERM', stop);
  process.once('disconnect', stop);
}
