import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `pattern` in stdout+stderr. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The exit, with the time it was seen (ms since the epoch). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Runs a TypeScript entry point of this project with Node 24, capturing its output. */
export function spawnNode(script: string, env: Record<string, string | undefined>, args: string[] = []): Spawned {
  const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const waiters: (() => void)[] = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const waiter of waiters) waiter();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  return {
    child,
    output: () => text,
    exited,
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${text}`)), timeoutMs);
        const check = () => {
          const match = pattern.exec(text);
          if (match) {
            clearTimeout(timer);
            resolve(match);
          }
        };
        waiters.push(check);
        check();
        void exited.then(() => setTimeout(() => {
          clearTimeout(timer);
          if (!pattern.test(text)) reject(new Error(`process exited before ${pattern}; output:\n${text}`));
        }, 50));
      });
    },
  };
}
