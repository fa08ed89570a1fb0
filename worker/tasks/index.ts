import type { TaskList } from 'graphile-worker';
import { deliveryQueries, type DeliveryDeps } from '../delivery/deliver.ts';
import { WEBHOOK_TASK } from '../delivery/store.ts';
import { noop } from './noop.ts';
import { webhookTask } from './webhook.ts';

/** Every task the worker runs, by graphile-worker identifier. */
export function tasks(deps: DeliveryDeps): TaskList {
  return {
    'app/noop': noop,
    [WEBHOOK_TASK]: webhookTask({ ...deps, queries: deps.queries ?? deliveryQueries(deps) }),
  };
}
