import type { TaskList } from 'graphile-worker';
import { deliveryQueries, type DeliveryDeps } from '../delivery/deliver.ts';
import { DELIVERY_TASK } from '../../shared/webhooks/deliveries/job.ts';
import { PRUNE_TASK } from '../../shared/webhooks/retention.ts';
import { pruneTask } from './prune.ts';
import { webhookTask } from './webhook.ts';

/** Every task the worker runs, by graphile-worker identifier. */
export function tasks(deps: DeliveryDeps): TaskList {
  return {
    [DELIVERY_TASK]: webhookTask({ ...deps, queries: deps.queries ?? deliveryQueries(deps) }),
    [PRUNE_TASK]: pruneTask(deps),
  };
}
