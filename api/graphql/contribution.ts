/**
 * What goes into the one GraphQL schema (a model declaration's `graphql.types` and
 * `graphql.resolvers`, docs/models.md): a contribution is an SDL string and a resolver map from one
 * source, a model declaration or one of the service's own modules (webhook endpoints, events,
 * deliveries). schema.ts merges them all; a problem names the sources involved.
 *
 * Glossary:
 * - source: who contributed (`model Post`, `webhooks`); named in every schema problem.
 * - resolver map: type name -> field name -> resolver `(parent, args, context, info)`; a type may
 *   also map to a `GraphQLScalarType` (custom scalar) or to enum values.
 */
import type { Models } from '../model-framework/data/model.ts';

/** A field resolver as the GraphQL layer calls it (declarations may use only `(parent, args)`). */
export type FieldResolver = (
  parent: unknown,
  args: Record<string, unknown>,
  context: unknown,
  info: unknown,
) => unknown;

/** type name -> field name -> resolver; or a scalar / enum value map. */
export type ResolverMap = Record<string, unknown>;

export interface Contribution {
  /** Who contributed it, as problems name it: `model Post`, `webhooks`. */
  source: string;
  /** GraphQL type definitions (SDL). */
  types: string;
  resolvers: ResolverMap;
  /**
   * Most items a list field answers whatever size it is asked (`Type.field` -> count): a larger
   * size is lowered or refused when the field runs, so the cost limit (cost.ts) counts no more.
   */
  listSizes?: Readonly<Record<string, number>>;
}

/** The contribution of every model declaration that has a `graphql` key, in declaration order. */
export function modelContributions(models: Pick<Models, 'all'>): Contribution[] {
  return models
    .all()
    .filter((model) => model.declaration.graphql !== undefined)
    .map((model) => ({
      source: `model ${model.name}`,
      types: model.declaration.graphql?.types as string,
      resolvers: (model.declaration.graphql?.resolvers ?? {}) as ResolverMap,
    }));
}
