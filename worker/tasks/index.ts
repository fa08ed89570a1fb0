import type { TaskList } from 'graphile-worker';
import type { WorkerDeps } from '../runner.ts';
import { noop } from './noop.ts';

/** Every task the worker runs, by graphile-worker identifier. */
export function tasks(_deps: WorkerDeps): TaskList {
  return {
    'app/noop': noop,
  };
}
