// Shows how far a replay is: on a TTY one line redrawn in place (a bar, counts, rate, time left), anywhere
// else a plain line every 10% so CI logs stay readable. Written to stderr so stdout keeps only the summary.
// It must never print a URL or any recorded value (it only sees counts), and never throws.
// (A library such as cli-progress was not worth a dependency for one line; see docs/replay.md.)
import type { Outcome } from '../report/entry.js';

export interface ProgressState {
  done: number;
  total: number;
  identical: number;
  different: number;
  skipped: number;
  errors: number;
}

const OUTCOME_COUNT: Readonly<Record<Outcome, 'identical' | 'different' | 'skipped' | 'errors'>> = {
  identical: 'identical',
  different: 'different',
  skipped: 'skipped',
  error: 'errors',
  // Not sent either; the summary counts them apart.
  'not-comparable': 'skipped',
};

/** Counts one more entry handed over. */
export function countEntry(state: ProgressState, outcome: Outcome): void {
  state.done++;
  state[OUTCOME_COUNT[outcome]]++;
}

export interface ProgressDisplay {
  update(state: ProgressState): void;
  finish(state: ProgressState): void;
}

interface Writable {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** The TTY line (pure; exported for tests). */
export function progressLine(state: ProgressState, elapsedSeconds: number, width: number): string {
  const ratio = state.total > 0 ? Math.min(1, state.done / state.total) : 1;
  const rate = elapsedSeconds > 0 ? state.done / elapsedSeconds : 0;
  const eta = rate > 0 ? (state.total - state.done) / rate : Infinity;
  const counts = `${state.done}/${state.total}  =${state.identical} ≠${state.different} skip ${state.skipped} err ${state.errors}  ${Math.round(rate)}/s  ${formatDuration(eta)} left`;
  const barWidth = Math.max(10, Math.min(40, width - counts.length - 8));
  const filled = Math.round(ratio * barWidth);
  return `[${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${counts}`;
}

export function createProgress(stream: Writable, options: { now?: () => number } = {}): ProgressDisplay {
  const now = options.now ?? (() => Date.now());
  const started = now();
  const tty = stream.isTTY === true;
  let lastDraw = 0;
  let lastDecile = -1;
  const safeWrite = (text: string): void => {
    try {
      stream.write(text);
    } catch {
      // A closed terminal must not stop the replay.
    }
  };
  const draw = (state: ProgressState): void => {
    const width = stream.columns ?? 100;
    safeWrite(`\r${progressLine(state, (now() - started) / 1000, width).slice(0, width - 1)}\x1b[K`);
  };
  return {
    update(state) {
      if (tty) {
        const t = now();
        if (t - lastDraw < 100 && state.done < state.total) return;
        lastDraw = t;
        draw(state);
        return;
      }
      const decile = state.total > 0 ? Math.floor((state.done / state.total) * 10) : 10;
      if (decile > lastDecile && decile < 10) {
        lastDecile = decile;
        safeWrite(`replay: ${state.done}/${state.total} entries (${decile * 10}%)\n`);
      }
    },
    finish(state) {
      if (tty) {
        draw(state);
        safeWrite('\n');
      } else {
        safeWrite(
          `replay: ${state.done}/${state.total} entries done in ${formatDuration((now() - started) / 1000)}\n`,
        );
      }
    },
  };
}
