/**
 * Model declarations (docs/models.md). A deployer writes one file per model in
 * `api/model-framework/models/` whose default export is a `ModelDeclaration`; the web process discovers them at
 * boot. Each model is a PostgreSQL table with a bigint primary key `id` (never leaves the
 * server) and a public `external_id` (opaque, unguessable, URL-safe) every payload uses; see
 * docs/models.md for the table each declaration needs.
 *
 * Glossary:
 * - field: a key of `schema`, camelCase in payloads; its column is snake_case unless `column` says otherwise.
 * - record: a row as the model returns it (`id`, `externalId`, the fields, timestamps), foreign keys as internal ids.
 * - public form: what `publish()` makes of a record: no `id`, every foreign key as the referenced `externalId`.
 */
import type { GraphqlContext } from '../../graphql/context.ts';

/** The field type constants (docs/models.md): `STRING`, `BOOLEAN`, `ObjectId` and the others users expect. */
export const Types = {
  STRING: 'string',
  BOOLEAN: 'boolean',
  /** A reference to another model's record; needs `ref`. In payloads: the referenced `externalId`. */
  ObjectId: 'objectId',
  INTEGER: 'integer',
  NUMBER: 'number',
  /** A point in time (`timestamptz`); ISO 8601 text in payloads. */
  DATE: 'date',
  /** Any JSON value (`jsonb`). */
  JSON: 'json',
} as const;

export const { STRING, BOOLEAN, ObjectId, INTEGER, NUMBER, DATE } = Types;

export type FieldType = (typeof Types)[keyof typeof Types];

export interface FieldDefinition {
  type: FieldType;
  /** A value must be given on create and may not be set to null (default false). */
  required?: boolean;
  /** Used on create when the field is missing; a function is called each time. */
  default?: unknown;
  /** Name of the referenced model (`ObjectId` fields only; required there). */
  ref?: string;
  /** Column name (default: the field name in snake_case). */
  column?: string;
  /**
   * Smallest and largest value (`INTEGER` and `NUMBER` fields), checked before the write so a
   * value the column cannot hold is reported as this field's problem. An `INTEGER` field's
   * default is the range of an `integer` column (-2147483648 to 2147483647); a `bigint` column
   * declares its own (`min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER`).
   */
  min?: number;
  max?: number;
}

/**
 * A GraphQL resolver as the GraphQL layer calls it: `parent` and `args` are what the declared SDL
 * shapes them to (graphql-js has checked the arguments' types), `context` the request's
 * (`principal`, `models`, `load`, `authorize`…, api/graphql/context.ts), so a declaration's
 * resolvers read them without casts.
 */
export type Resolver = (parent: any, args: Record<string, any>, context: GraphqlContext, info?: unknown) => unknown;

export interface ModelDeclaration {
  /** Model name, singular PascalCase (`Author`); what `ref` names. */
  name: string;
  /** Plural resource name used in routes and `_embedded` (default: the name pluralised in kebab-case, `blog-posts`). */
  collection?: string;
  /** Table name (default: the name pluralised in snake_case, `blog_posts`). */
  table?: string;
  schema: Record<string, FieldDefinition>;
  options?: {
    /** The table has `created_at` and `updated_at`; payloads carry `createdAt` and `updatedAt` (default false). */
    timestamps?: boolean;
  };
  /**
   * Per-record rules (model policies, which HAL links obey too; docs/models.md): whether
   * `principal` may do `action` (`index`, `show`, `create`, `update`, `destroy`, `new`, `edit`)
   * with `record` (the record as the model returns it, or a controller's `subject`; for `create`
   * the permitted input; absent for `index` and `new`). Applied after the route's role rule: a
   * record the policy does not let the principal `show` is answered 404, as if it did not exist;
   * another refused action on a record it may see is 403 `APP_FORBIDDEN`. Links are filtered per
   * record the same way.
   */
  policy?: ModelPolicy;
  /**
   * The field values a principal's listings are limited to (`{owner: principal.owner}`), added to
   * the listing's query so pages and totals stay exact; undefined: no limit. Scalar fields only.
   * Without it, a listing reads every record it matches and keeps those the policy lets `show`.
   */
  policyScope?: (
    principal: PolicyPrincipal | undefined,
  ) => Record<string, string | number | boolean | null> | undefined;
  /**
   * Changes emitted as webhook events: each listed change of a record is
   * emitted as `<model>.created`, `.updated` or `.deleted` (`<model>` the name in snake_case,
   * `BlogPost` -> `blog_post`) in the same transaction as the write, with the record's HAL
   * representation as `data`; the event's owner is the record's `owner` field (another field with
   * `owner: '<field>'`; none: no owner).
   */
  webhooks?: { events: readonly ModelChange[]; owner?: string };
  /** GraphQL type definitions and resolvers; the GraphQL layer merges those of all models. */
  graphql?: {
    types: string;
    resolvers: Record<string, Record<string, Resolver>>;
  };
}

/** A change of a record a model may emit as an event. */
export type ModelChange = 'created' | 'updated' | 'deleted';

/** Who a policy decides for: the request's principal (shared/tokens/principal.ts). */
export interface PolicyPrincipal {
  id: string;
  roles: readonly string[];
  owner?: string | null;
}

export type PolicyAction = 'index' | 'show' | 'create' | 'update' | 'destroy' | 'new' | 'edit' | (string & {});

export type ModelPolicy = (
  principal: PolicyPrincipal | undefined,
  action: PolicyAction,
  record?: Record<string, unknown>,
) => boolean | Promise<boolean>;

/** Identity helper that keeps a declaration's literal types (`export default defineModel({...})`). */
export function defineModel<const T extends ModelDeclaration>(declaration: T): T {
  return declaration;
}
