/**
 * Model changes as webhook events: the sink models call inside a write's
 * transaction. The record is presented as HAL (the links an anonymous caller would be given: no
 * role-restricted ones) and emitted as `<model>.<change>` through the ordinary emit, on the
 * write's transaction, so the record, the event, its deliveries and their jobs commit together.
 */
import type { Queryable, Sql } from '../../../shared/db/connect.ts';
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import { emit } from '../../../shared/webhooks/events/emit.ts';
import { presentResource, type PresentDeps } from '../../hal/present.ts';
import type { Model, ModelEvents, ModelRecord } from './model.ts';

/** `BlogPost` -> `blog_post`: the prefix of a model's event names. */
export const modelEventPrefix = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** The record's owner: its `webhooks.owner` field, else an `owner` field, else none. */
function ownerOf(model: Model, record: ModelRecord): string | null {
  const field =
    model.declaration.webhooks?.owner ??
    (model.shape.fields.some((candidate) => candidate.name === 'owner') ? 'owner' : undefined);
  const value = field === undefined ? null : (record as Record<string, unknown>)[field];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** A sink that emits through `webhooks`; `bind` gives it the presentation (known once the routes are). */
export function modelEventSink(webhooks: WebhookDeps): ModelEvents & { bind(present: PresentDeps): void } {
  let present: PresentDeps | undefined;
  return {
    bind(deps) {
      present = deps;
    },
    async emit(tx: Queryable, model: Model, change, record) {
      if (!present) throw new Error('model events: the API is not built yet');
      const { body } = await presentResource(present, {
        record,
        type: model.collection,
        principal: undefined,
        options: {},
      });
      // the emit runs on the write's transaction (its own writes in a savepoint of it)
      await emit({ ...webhooks, sql: tx as Sql }, `${modelEventPrefix(model.name)}.${change}`, body, {
        owner: ownerOf(model, record),
      });
    },
  };
}
