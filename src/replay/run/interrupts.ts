// SIGINT and SIGTERM during a replay: the first stops the run gracefully (the calls in flight finish and
// the reports cover the entries done), a second removes the partial report files and quits at once with
// exit code 130. The only place the replay command may end the process (process.exit): the operator asked
// twice to stop and waits for nothing more. Tests hand in their own signal source and exit.
import { removeFilesNow } from '../report/files.js';
import { INTERRUPTED_EXIT_CODE } from '../report/verdict.js';

export type InterruptSignal = 'SIGINT' | 'SIGTERM';
const INTERRUPT_SIGNALS: readonly InterruptSignal[] = ['SIGINT', 'SIGTERM'];

/** Where the interrupt signals come from: `process`, or an event emitter in tests. */
export interface SignalSource {
  on(signal: InterruptSignal, listener: () => void): unknown;
  off(signal: InterruptSignal, listener: () => void): unknown;
}

/** What the interrupt handling needs of the command's input and output. */
export interface InterruptIo {
  stderr: { write(text: string): unknown; isTTY?: boolean };
  /** SIGINT and SIGTERM during the run (default: process). */
  signals?: SignalSource;
  /**
   * Ends the process on a second signal (default: process.exit). One that returns (a test's) makes the
   * command return that code without writing anything more.
   */
  exit?: (code: number) => void;
}

function exitAtOnce(code: number): never {
  // The command's only exit: the operator asked twice to stop, and waits for nothing more.
  process.exitCode = code;
  process.exit(code);
}

export interface Interrupts {
  /** Aborted by the first signal. */
  readonly signal: AbortSignal;
  /** A second signal came: the partial report files are gone and nothing more may be written. */
  readonly quit: boolean;
  /** The replay is over (reports are being written): a first signal no longer has calls to wait for. */
  replayOver(): void;
  /** Removes the listeners. */
  dispose(): void;
}

/** The first signal stops the run gracefully; a second removes the partial report files and exits. */
export function listenForInterrupts(io: InterruptIo, partialFiles: readonly string[]): Interrupts {
  const source: SignalSource = io.signals ?? process;
  const exit = io.exit ?? exitAtOnce;
  const controller = new AbortController();
  // On a terminal the progress bar holds the current line.
  const lineStart = io.stderr.isTTY === true ? '\n' : '';
  let replayOver = false;
  let quit = false;
  const onSignal = (): void => {
    if (!controller.signal.aborted) {
      controller.abort();
      io.stderr.write(
        replayOver
          ? `${lineStart}interrupted: writing the reports (press Ctrl-C again to quit at once)\n`
          : `${lineStart}interrupted: finishing the calls in flight, then writing the reports of the entries done (press Ctrl-C again to quit at once)\n`,
      );
      return;
    }
    if (quit) return;
    quit = true;
    removeFilesNow(partialFiles);
    io.stderr.write(`${lineStart}interrupted again: partial report files removed, quitting (exit ${INTERRUPTED_EXIT_CODE})\n`);
    exit(INTERRUPTED_EXIT_CODE);
  };
  for (const name of INTERRUPT_SIGNALS) source.on(name, onSignal);
  return {
    signal: controller.signal,
    get quit() {
      return quit;
    },
    replayOver() {
      replayOver = true;
    },
    dispose() {
      for (const name of INTERRUPT_SIGNALS) source.off(name, onSignal);
    },
  };
}
