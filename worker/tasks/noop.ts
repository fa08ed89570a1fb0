import type { Task } from 'graphile-worker';

/** `app/noop`: does nothing; the delivery benchmark measures graphile-worker's own rate with it. */
export const noop: Task = async () => {};
