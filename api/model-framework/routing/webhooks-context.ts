/**
 * `ctx.webhooks`: the webhook core for the application's own controllers, bound to the request's
 * caller. The functions are the ones the product's webhook API calls (shared/webhooks/endpoints/,
 * shared/webhooks/events/) with the web process's one `WebhookDeps` (its pool and endpoint cache,
 * so an emit here sees at once what any face of this process registered), given the caller as
 * the core's actor: the principal's role and tenant scope (shared/access/actor.ts `actorOf`), or,
 * on an open route without credentials, `ANONYMOUS`, which may do nothing. What the caller may do
 * is decided by the core alone: a refused write is its 403 `APP_FORBIDDEN`, another tenant its
 * 404 `APP_TENANT_NOT_FOUND`; a read is refused there too when the table does not let it read.
 */
import type { Middleware } from 'koa';
import { ANONYMOUS, actorOf, type Actor } from '../../../shared/access/actor.ts';
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import {
  disableEndpoint,
  enableEndpoint,
  endpointStatuses,
  listEndpoints,
  registerEndpoint,
  removeEndpoint,
  revealEndpoint,
  rotateSecret,
  showEndpoint,
  updateEndpoint,
} from '../../../shared/webhooks/endpoints/index.ts';
import { emitEvent, sendToEndpoint, type Delivery, type EmitOptions } from '../../../shared/webhooks/events/index.ts';
import type { Webhooks } from '../../../shared/webhooks/index.ts';

/**
 * The webhook interface of one request: the in-process `webhooks` interface (shared/webhooks/index.ts)
 * with the request's caller in place of the operator. `emit` without `owner` emits for the
 * caller's tenant (an admin: for the endpoints without owner); a caller bound to one tenant
 * naming another is refused.
 */
export interface RequestWebhooks extends Omit<Webhooks, 'emit' | 'cache' | 'close'> {
  emit(event: string, data?: unknown, options?: Pick<EmitOptions, 'owner' | 'eventId'>): Promise<Delivery[]>;
}

/** Sets `ctx.webhooks` on every request; the caller is read when a function is called, after authentication. */
export function webhooksContext(deps: WebhookDeps): Middleware {
  return async function webhooksContext(ctx, next) {
    const caller = (): { deps: WebhookDeps; actor: Actor } => {
      const principal = ctx.state.principal;
      return {
        deps,
        actor: principal ? actorOf(principal) : ANONYMOUS,
      };
    };
    const webhooks: RequestWebhooks = {
      register: async (options) => {
        const { deps, actor } = caller();
        return registerEndpoint(deps, actor, options);
      },
      emit: async (event, data, options = {}) => {
        const { deps, actor } = caller();
        const input = { type: event, data, owner: options.owner, eventId: options.eventId };
        return (await emitEvent(deps, actor, input)).deliveries;
      },
      rotate: async (id, options) => {
        const { deps, actor } = caller();
        return rotateSecret(deps, actor, id, options);
      },
      send: async (id, event, payload) => {
        const { deps, actor } = caller();
        return sendToEndpoint(deps, actor, id, event, payload);
      },
      update: async (id, patch) => {
        const { deps, actor } = caller();
        return updateEndpoint(deps, actor, id, patch);
      },
      disable: async (id, options) => {
        const { deps, actor } = caller();
        return disableEndpoint(deps, actor, id, options);
      },
      enable: async (id) => {
        const { deps, actor } = caller();
        return enableEndpoint(deps, actor, id);
      },
      remove: async (id) => {
        const { deps, actor } = caller();
        return removeEndpoint(deps, actor, id);
      },
      list: async (options) => {
        const { deps, actor } = caller();
        return (await listEndpoints(deps, actor, options)).records;
      },
      show: async (id, options) => {
        const { deps, actor } = caller();
        return options?.reveal ? revealEndpoint(deps, actor, id) : showEndpoint(deps, actor, id);
      },
      status: async (options) => {
        const { deps, actor } = caller();
        return endpointStatuses(deps, actor, options);
      },
    };
    ctx.webhooks = webhooks;
    await next();
  };
}
