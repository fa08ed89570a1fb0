/**
 * The resolvers of webhook endpoints, events and deliveries: each calls the same tenant-scoped
 * core function as the REST controller (api/webhooks-api/controllers/) and the CLI, so the
 * SQL and the tenant rules live in one place. The endpoint of every delivery in a page is read
 * with one statement per request level (batch loading).
 */
import {
  publicDelivery,
  publicDeliveryDetails,
  publicEndpoint,
  publicEvent,
  publicNewDelivery,
} from '../../../shared/webhooks/public-shapes.ts';
import type { GraphQLFieldResolver } from 'graphql';
import type { Config } from '../../../shared/config/index.ts';
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import {
  listDeliveries,
  recoverDeliveries,
  resendDelivery,
  retryDelivery,
  showDelivery,
} from '../../../shared/webhooks/deliveries/index.ts';
import { endpointsInScope } from '../../../shared/webhooks/endpoints/batch.ts';
import { maskedEndpoint, type ShownEndpoint } from '../../../shared/webhooks/endpoints/store.ts';
import {
  listEndpoints,
  registerEndpoint,
  removeEndpoint,
  rotateSecret,
  sendTestEvent,
  showEndpoint,
  updateEndpoint,
} from '../../../shared/webhooks/endpoints/index.ts';
import { emitEvent, listEvents, showEvent } from '../../../shared/webhooks/events/index.ts';
import type { RegisterOptions } from '../../../shared/webhooks/endpoints/register.ts';
import { parseTimeRange } from '../../../shared/webhooks/time-range.ts';
import { recentEventsOfEndpoint, testFilter } from '../../../shared/webhooks/filters/try.ts';
import type { EndpointPatch } from '../../../shared/webhooks/endpoints/update.ts';
import type { GraphqlContext } from '../context.ts';
import type { ResolverMap } from '../contribution.ts';
import { actorIn, ownerOf, pageAnswer, pageOf } from './access.ts';

// Arguments and parents are what the SDL (types.ts) and the core functions say: GraphQL has checked them.
type Args = Record<string, any>;
type Resolve = GraphQLFieldResolver<any, GraphqlContext, Args>;

/**
 * An endpoint node: its public fields, header values null as the core answered them (the
 * `headers` field resolver below asks the core again for the values when asked to reveal them).
 */
const endpointNode = (endpoint: ShownEndpoint) => publicEndpoint(endpoint);

/** The resolver map over `deps` (the web process's webhook dependencies, its endpoint cache included). */
export function webhookResolvers(
  deps: WebhookDeps,
  limits: Pick<Config['api'], 'perPage' | 'maxPerPage' | 'maxPageOffset'>,
): ResolverMap {
  const query: Record<string, Resolve> = {
    async webhookEndpoints(_root, args, context) {
      const actor = actorIn(context.principal);
      const page = pageOf(args, limits);
      const filter = args.filter ?? {};
      const { records, total } = await listEndpoints(deps, actor, {
        owner: ownerOf(filter),
        enabled: filter.enabled ?? undefined,
        events: filter.events ?? undefined,
        ...page,
      });
      return pageAnswer(records.map(endpointNode), total, page, limits.maxPageOffset);
    },
    webhookEndpoint: async (_root, args, context) =>
      endpointNode(await showEndpoint(deps, actorIn(context.principal), args.id)),
    async webhookEvents(_root, args, context) {
      const actor = actorIn(context.principal);
      const page = pageOf(args, limits);
      const filter = args.filter ?? {};
      const { records, total, totalEstimated } = await listEvents(deps, actor, {
        owner: ownerOf(filter),
        type: filter.type ?? undefined,
        ...parseTimeRange({ since: filter.since, until: filter.until }),
        ...page,
      });
      return pageAnswer(records.map(publicEvent), total, page, limits.maxPageOffset, totalEstimated);
    },
    webhookEvent: async (_root, args, context) =>
      publicEvent(await showEvent(deps, actorIn(context.principal), args.id)),
    async webhookDeliveries(_root, args, context) {
      const actor = actorIn(context.principal);
      const page = pageOf(args, limits);
      const filter = args.filter ?? {};
      const { records, total, totalEstimated } = await listDeliveries(deps, actor, {
        statuses: filter.status ?? undefined,
        endpoint: filter.endpoint ?? undefined,
        event: filter.event ?? undefined,
        type: filter.type ?? undefined,
        owner: ownerOf(filter),
        ...parseTimeRange({ since: filter.since, until: filter.until }),
        ...page,
      });
      return pageAnswer(records.map(publicDelivery), total, page, limits.maxPageOffset, totalEstimated);
    },
    webhookDelivery: async (_root, args, context) =>
      publicDeliveryDetails(await showDelivery(deps, actorIn(context.principal), args.id)),
    async testWebhookFilter(_root, args, context) {
      // a filter left out is refused by the core (null says "no filter"), as REST refuses it
      const input = {
        ...(args.filter === undefined ? {} : { filter: args.filter }),
        ...(args.event == null ? {} : { event: args.event }),
        ...(args.eventId == null ? {} : { eventId: args.eventId }),
      };
      const { matches, failed } = await testFilter(deps, actorIn(context.principal), input);
      return { matches, failed };
    },
  };

  const mutation: Record<string, Resolve> = {
    async registerWebhookEndpoint(_root, args, context) {
      const endpoint = await registerEndpoint(deps, actorIn(context.principal), args.input as RegisterOptions);
      const { secret, ...rest } = endpoint;
      return { endpoint: endpointNode(maskedEndpoint(rest)), secret };
    },
    updateWebhookEndpoint: async (_root, args, context) =>
      endpointNode(
        maskedEndpoint(await updateEndpoint(deps, actorIn(context.principal), args.id, args.input as EndpointPatch)),
      ),
    async removeWebhookEndpoint(_root, args, context) {
      return (await removeEndpoint(deps, actorIn(context.principal), args.id)).id;
    },
    async rotateWebhookSecret(_root, args, context) {
      const actor = actorIn(context.principal);
      const rotated = await rotateSecret(
        deps,
        actor,
        args.id,
        args.grace === null || args.grace === undefined ? {} : { grace: args.grace },
      );
      return {
        endpoint: endpointNode(await showEndpoint(deps, actor, args.id)),
        secret: rotated.secret,
        graceEndsAt: rotated.graceEndsAt,
      };
    },
    async sendTestWebhookEvent(_root, args, context) {
      const input = {
        ...(args.type == null ? {} : { type: args.type }),
        ...(args.data === undefined ? {} : { data: args.data }),
      };
      return publicNewDelivery(await sendTestEvent(deps, actorIn(context.principal), args.id, input));
    },
    async emitWebhookEvent(_root, args, context) {
      const actor = actorIn(context.principal);
      const result = await emitEvent(deps, actor, args.input);
      return {
        event: result.event === null ? null : publicEvent(await showEvent(deps, actor, result.event.id)),
        type: result.type,
        owner: result.owner,
        deliveries: result.deliveries.map(publicNewDelivery),
        duplicate: result.duplicate,
        filteredOut: result.filteredOut,
      };
    },
    retryWebhookDelivery: async (_root, args, context) =>
      publicDelivery(await retryDelivery(deps, actorIn(context.principal), args.id)),
    resendWebhookDelivery: async (_root, args, context) =>
      publicDelivery(await resendDelivery(deps, actorIn(context.principal), args.id)),
    recoverWebhookDeliveries: (_root, args, context) =>
      recoverDeliveries(deps, actorIn(context.principal), args.id, {
        since: args.since,
        until: args.until ?? undefined,
      }),
  };

  /** The deprecated `id` alias of `externalId`. */
  const idAlias: Resolve = (record) => record.externalId;

  const delivery: Record<string, Resolve> = {
    id: idAlias,
    attempts: (record) => record.attempts ?? null,
    endpoint(record, _args, context) {
      const actor = actorIn(context.principal);
      const loader = context.loaders.get<string, ShownEndpoint>('webhook-endpoints', (ids) =>
        endpointsInScope(deps, actor, ids),
      );
      return loader
        .load(record.endpointId)
        .then((endpoint) => (endpoint === undefined ? null : endpointNode(endpoint)));
    },
  };

  return {
    Query: query,
    Mutation: mutation,
    WebhookDelivery: delivery,
    WebhookEvent: { id: idAlias },
    // header values are receiver credentials: names for everyone, values when the core reveals them
    WebhookEndpoint: {
      id: idAlias,
      recentEvents: async (
        endpoint: { externalId: string },
        args: { limit?: number | null },
        context: GraphqlContext,
      ) =>
        (
          await recentEventsOfEndpoint(deps, actorIn(context.principal), endpoint.externalId, {
            limit: args.limit ?? 10,
          })
        ).map((event) => ({ externalId: event.id, type: event.type, createdAt: event.createdAt })),
      async headers(
        endpoint: ReturnType<typeof endpointNode>,
        args: { reveal?: boolean | null },
        context: GraphqlContext,
      ) {
        if (args.reveal !== true) return endpoint.headers;
        // the values of every endpoint of the answer, read at once; the core refuses whoever may not reveal them
        const actor = actorIn(context.principal);
        const loader = context.loaders.get<string, ShownEndpoint>('webhook-endpoint-headers', (ids) =>
          endpointsInScope(deps, actor, ids, { revealHeaders: true }),
        );
        return (await loader.load(endpoint.externalId))?.headers ?? endpoint.headers;
      },
    },
    WebhookDeliveryStatus: { PENDING: 'pending', RUNNING: 'running', DONE: 'done', DEAD: 'dead' },
  };
}
