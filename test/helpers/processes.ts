import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** When the exit was seen (ms since the epoch). */
  at: number;
}

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `pattern` in stdout+stderr. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The exit, with the time it was seen (ms since the epoch). */
  exited: Promise<Exit>;
  /** The exit, or a rejection (with the output so far) when the process is still running after `timeoutMs`. */
  exitedWithin(timeoutMs: number): Promise<Exit>;
}

/** Runs an entry point of this project (a .ts file, or cli/bin.js) with Node 24, capturing its output. */
export function spawnNode(script: string, env: Record<string, string | undefined>, args: string[] = []): Spawned {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const waiters: (() => void)[] = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const waiter of waiters) waiter();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  /** After the exit, once its output is all read (stdout and stderr closed): nothing more can match. */
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    child,
    output: () => text,
    exited,
    exitedWithin(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`still running ${timeoutMs} ms later; output:\n${text}`)), timeoutMs);
      });
      return Promise.race([exited, late]).finally(() => clearTimeout(timer));
    },
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${pattern}; output:\n${text}`)),
          timeoutMs,
        );
        const check = () => {
          const match = pattern.exec(text);
          if (match) {
            clearTimeout(timer);
            resolve(match);
          }
        };
        waiters.push(check);
        check();
        void closed.then(() => {
          clearTimeout(timer);
          if (!pattern.test(text)) reject(new Error(`process exited before ${pattern}; output:\n${text}`));
        });
      });
    },
  };
}
