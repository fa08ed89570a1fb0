/** Thrown when a shared store does not answer within `shared.timeout`. */
export class StoreTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
    this.name = 'StoreTimeoutError';
  }
}

/**
 * `promise`, or a rejection after `ms`: a store that hangs must fail the request quickly
 * (503 or uncounted), not hold it until `config.requestTimeout`.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  if (!(ms > 0) || !Number.isFinite(ms)) return promise;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(what, ms)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
