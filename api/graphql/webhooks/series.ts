/**
 * Deliveries over time in GraphQL (the console's charts): `webhookDeliverySeries` for every
 * endpoint in reach (an admin may name one owner) and `WebhookEndpoint.deliverySeries` for one,
 * over shared/webhooks/deliveries/series.ts, scoped by the same rules as every webhook read.
 */
import type { GraphQLFieldResolver } from 'graphql';
import { deliverySeries, type SeriesWindow } from '../../../shared/webhooks/deliveries/series.ts';
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import type { GraphqlContext } from '../context.ts';
import type { Contribution } from '../contribution.ts';
import { actorIn, ownerOf } from './access.ts';

const TYPES = /* GraphQL */ `
  enum WebhookSeriesWindow {
    "The last 24 hours, per hour (the current hour last)."
    DAY
    "The last hour, per minute (the current minute last)."
    HOUR
  }

  "Attempts of a time range by outcome, and their durations."
  type WebhookSeriesFigures {
    "Attempts the receiver accepted (2xx): deliveries delivered."
    done: Int!
    "Failed attempts to be tried again."
    failed: Int!
    "Failed attempts after which the delivery was given up: deliveries that died."
    dead: Int!
    "done + failed + dead."
    attempts: Int!
    "Median attempt duration in ms; null when nothing was attempted."
    p50Ms: Float
    "95th percentile of the attempt durations in ms; null when nothing was attempted."
    p95Ms: Float
  }

  "One bucket of a series."
  type WebhookSeriesBucket {
    "When the bucket starts (it ends where the next one starts)."
    start: DateTime!
    done: Int!
    failed: Int!
    dead: Int!
    attempts: Int!
    p50Ms: Float
    p95Ms: Float
  }

  "Attempts per hour (or minute) over a window, by outcome, with the p50 and p95 of their durations."
  type WebhookDeliverySeries {
    window: WebhookSeriesWindow!
    "Width of a bucket in seconds."
    stepSeconds: Int!
    from: DateTime!
    "The end of the window (not included)."
    until: DateTime!
    "Every bucket of the window in time order, those without attempts at zero."
    buckets: [WebhookSeriesBucket!]!
    "The whole window (its percentiles are over all its attempts)."
    totals: WebhookSeriesFigures!
  }

  type WebhookEndpoint {
    "This endpoint's attempts over the window, by outcome, and their durations."
    deliverySeries(window: WebhookSeriesWindow = DAY): WebhookDeliverySeries!
  }

  type Query {
    "Attempts of every endpoint in reach over the window; an admin may name one owner (or withoutOwner)."
    webhookDeliverySeries(window: WebhookSeriesWindow = DAY, owner: String, withoutOwner: Boolean): WebhookDeliverySeries!
  }
`;

type Resolve = GraphQLFieldResolver<any, GraphqlContext, Record<string, any>>;

const windowOf = (value: unknown): SeriesWindow => (value === 'HOUR' ? 'hour' : 'day');

/** The core's series as the GraphQL type presents it. */
const present = (series: Awaited<ReturnType<typeof deliverySeries>>) => ({
  ...series,
  window: series.window.toUpperCase(),
  stepSeconds: series.stepMs / 1000,
});

export function seriesContribution(deps: WebhookDeps): Contribution {
  const endpointSeries: Resolve = async (endpoint: { externalId: string }, args, context) =>
    present(
      await deliverySeries(deps, actorIn(context.principal), {
        window: windowOf(args.window),
        endpoint: endpoint.externalId,
      }),
    );
  const webhookDeliverySeries: Resolve = async (_root, args, context) =>
    present(
      await deliverySeries(deps, actorIn(context.principal), { window: windowOf(args.window), owner: ownerOf(args) }),
    );
  return {
    source: 'webhook delivery series',
    types: TYPES,
    resolvers: { WebhookEndpoint: { deliverySeries: endpointSeries }, Query: { webhookDeliverySeries } },
  };
}
