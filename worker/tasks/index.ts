import type { TaskList } from 'graphile-worker';
import { deliveryQueries, type DeliveryDeps } from '../delivery/deliver.ts';
import { DELIVERY_TASK } from '../../shared/webhooks/enqueue.ts';
import { webhookTask } from './webhook.ts';

/** Every task the worker runs, by graphile-worker identifier. */
export function tasks(deps: DeliveryDeps): TaskList {
  return {
    [DELIVERY_TASK]: webhookTask({ ...deps, queries: deps.queries ?? deliveryQueries(deps) }),
  };
}
