/**
 * The event-type catalog in GraphQL, over shared/webhooks/event-types/ like the REST controller:
 * every role reads it; who changes it the core decides (admins).
 */
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import {
  createEventType,
  listEventTypes,
  showEventType,
  updateEventType,
  type EventTypeInput,
} from '../../../shared/webhooks/event-types/index.ts';
import type { Config } from '../../../shared/config/index.ts';
import type { GraphqlContext } from '../context.ts';
import type { Contribution } from '../contribution.ts';
import { actorIn, pageAnswer, pageOf } from './access.ts';
import { pageTypeSdl } from './page-type.ts';

const TYPES = /* GraphQL */ `
  "A type of the event catalog: what its events mean and, when it has one, the JSON Schema (draft 2020-12) their data must match."
  type EventType {
    name: String!
    description: String
    "JSON Schema of the events' data; null: any data."
    schema: JSON
    examples: [JSON!]!
    deprecated: Boolean!
    createdAt: DateTime!
    updatedAt: DateTime!
  }

  ${pageTypeSdl('EventTypePage', 'EventType')}

  input EventTypeInput {
    name: String!
    description: String
    schema: JSON
    examples: [JSON!]
    deprecated: Boolean
  }

  "The fields to change; schema: null removes the schema."
  input EventTypePatch {
    description: String
    schema: JSON
    examples: [JSON!]
    deprecated: Boolean
  }

  extend type Query {
    "The catalog in name order (deprecated types too unless includeDeprecated is false)."
    eventTypes(includeDeprecated: Boolean = true, page: Int, perPage: Int): EventTypePage!
    eventType(name: String!): EventType
  }

  extend type Mutation {
    createEventType(input: EventTypeInput!): EventType!
    updateEventType(name: String!, input: EventTypePatch!): EventType!
  }
`;

type Args = Record<string, unknown>;

export function eventTypesContribution(
  deps: WebhookDeps,
  limits: Pick<Config['api'], 'perPage' | 'maxPerPage' | 'maxPageOffset'>,
): Contribution {
  return {
    source: 'event types',
    types: TYPES,
    listSizes: { 'Query.eventTypes': limits.maxPerPage },
    resolvers: {
      Query: {
        eventTypes: async (_root: unknown, args: Args, context: GraphqlContext) => {
          const page = pageOf(args, limits);
          const { records, total } = await listEventTypes(deps, actorIn(context.principal), {
            includeDeprecated: args.includeDeprecated !== false,
            ...page,
          });
          return pageAnswer(records, total, page, limits.maxPageOffset);
        },
        eventType: (_root: unknown, args: Args, context: GraphqlContext) =>
          showEventType(deps, actorIn(context.principal), args.name),
      },
      Mutation: {
        createEventType: (_root: unknown, args: Args, context: GraphqlContext) =>
          createEventType(deps, actorIn(context.principal), args.input as EventTypeInput),
        updateEventType: (_root: unknown, args: Args, context: GraphqlContext) =>
          updateEventType(deps, actorIn(context.principal), args.name, args.input as EventTypeInput),
      },
    },
  };
}
