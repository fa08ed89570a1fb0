/**
 * Deadlines for tests of what may hang (a query on a connection the driver mishandles): a promise
 * that has not settled by its deadline fails the test naming what hung, instead of the file's
 * timeout ending the run.
 */
import assert from 'node:assert/strict';

/** `within` and `rejection` with `defaultMs` as their deadline unless given another. */
export function deadlines(defaultMs: number) {
  /** Settles with `promise`, or rejects naming `what` past `ms`. */
  async function within<T>(what: string, promise: Promise<T>, ms = defaultMs): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} hung`)), ms))),
    ]).finally(() => clearTimeout(timer));
  }

  /** The error `promise` rejects with, failing the test when it resolves or hangs. */
  async function rejection(what: string, promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
    const error = await within(
      what,
      promise.then(
        () => undefined,
        (e: { code?: string; message: string }) => e,
      ),
    );
    assert.ok(error, `${what} resolved`);
    return error;
  }

  return { within, rejection };
}
