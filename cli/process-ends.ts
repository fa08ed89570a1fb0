/**
 * How the `app` process ends when what surrounds it ends first, as in a script, a cron job or a
 * CI pipeline:
 *
 * - Its stdout's reader stops early (`app jobs:list | head -1`): the run ends at once, without a
 *   word, with the exit code it had so far: 0 unless the command had failed. `git` and `ls` end
 *   as quietly, but killed by SIGPIPE, which a shell reports as 141 and which fails a
 *   `set -o pipefail` pipeline over a `head`; a reader that had enough is no failure of `app`.
 * - Its stderr's reader stops: what it would still say is dropped, and the run goes on to its own
 *   exit code (Node would end it with exit 1, its stack trace written to the closed pipe).
 * - SIGINT or SIGTERM (Ctrl-C, `timeout`, a cancelled CI job): `io.interrupted` aborts, so the
 *   command's database statements in flight are cancelled on the server (cli/command.ts), where a
 *   process killed outright leaves them running there: a write waiting on a lock would still be
 *   made once the lock is free. Once the run has ended, saying `app: interrupted by SIGTERM: …`
 *   in one line, or after INTERRUPT_GRACE_MS at most, the process ends killed by the signal
 *   itself: a shell reports 130 or 143, and a script looping over `app` stops at Ctrl-C as it does
 *   for any tool. A second signal ends it at once. A command that handles the signal itself
 *   (`listen` removes its endpoint, `jobs` drains its worker) keeps that meaning: this steps aside.
 */
import { reportFailure } from './app.ts';
import { INTERRUPTING_SIGNALS, type InterruptingSignal, interruptedFailure } from './failure.ts';
import type { CliIo } from './io.ts';

/** The longest a stopped run is waited for (its cancelled statements to fail, its pool to close). */
export const INTERRUPT_GRACE_MS = 2_000;

const SIGNALS = Object.keys(INTERRUPTING_SIGNALS) as InterruptingSignal[];

/** The exit code the run has so far: what its command asked for, else what the process was given. */
const exitSoFar = (io: CliIo): number => io.exitCode ?? (typeof process.exitCode === 'number' ? process.exitCode : 0);

/** Ends the run quietly when stdout's reader has gone, and goes on when stderr's has. */
export function endQuietlyOnClosedPipes(io: CliIo): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(exitSoFar(io));
  });
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/**
 * Stops the run of `argv` on SIGINT or SIGTERM (see the file comment); `end(code)` ends the
 * process once the run answered `code`.
 */
export function stopOnSignals(io: CliIo, argv: readonly string[]): { end(code: number): void } {
  const controller = new AbortController();
  io.interrupted = controller.signal;

  let grace: NodeJS.Timeout | undefined;
  const stopListening = () => {
    clearTimeout(grace);
    for (const each of SIGNALS) process.off(each, onSignal);
  };
  const die = (signal: InterruptingSignal) => {
    stopListening();
    // the code a shell would report, should another listener keep the signal from killing
    process.exitCode = interruptedFailure(signal).exit;
    process.kill(process.pid, signal);
  };

  function onSignal(signal: InterruptingSignal) {
    // the command's own listener is there too: the signal is its to handle
    if (process.listenerCount(signal) > 1) return;
    if (controller.signal.aborted) return die(signal);
    controller.abort(signal);
    grace = setTimeout(() => {
      reportFailure(argv, io, interruptedFailure(signal));
      die(signal);
    }, INTERRUPT_GRACE_MS);
  }
  for (const signal of SIGNALS) process.on(signal, onSignal);

  return {
    end(code) {
      const signal = controller.signal.aborted ? (controller.signal.reason as InterruptingSignal) : undefined;
      // stopped by the signal (not a run that finished its work before it came)
      if (signal !== undefined && code === interruptedFailure(signal).exit) return die(signal);
      stopListening();
      process.exitCode = code;
    },
  };
}
