/**
 * The estimated cost of an operation (limit `graphql.maxCost`): a simple per-field cost with
 * list multipliers, in the manner of graphql-armor's cost limit and IBM's `@listSize`.
 *
 * - Every field costs 1 (introspection fields cost nothing; see limits.ts).
 * - A field returning a list costs `1 + size × (cost of its selection)`: its selection is
 *   resolved once per item. The size is the field's own size argument (`first`, `last`,
 *   `limit`, `perPage`, `per_page`, `size`: a literal, a variable of the request or its declared
 *   default, or the argument's default), else a size argument of the field just above it (a page type such as
 *   `deliveries(perPage: 100) { nodes { ... } }`), else `defaultListSize` (`api.perPage`).
 * - A size above the most a field answers (`maxListSizes`, `Type.field`: `api.maxPerPage` for
 *   the pages, 50 for `recentEvents`) counts as that most: the field lowers or refuses a larger
 *   one when it runs (`APP_PAGINATION_INVALID`), so it is never charged for items it cannot give.
 * - Fragments are measured once per (fragment, inherited size) and a cycle costs nothing.
 */
import {
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

/** Argument names whose value is the size of the list a field answers. */
export const SIZE_ARGUMENTS: readonly string[] = ['first', 'last', 'limit', 'perPage', 'per_page', 'size'];

const cap = (value: number) => Math.min(value, Number.MAX_SAFE_INTEGER);

/**
 * The value of each variable as the operation will run with it: the request's, else the default
 * its definition declares (`$n: Int = 100`), which GraphQL uses when the request leaves it out.
 */
function variableValues(
  operation: OperationDefinitionNode,
  given: Readonly<Record<string, unknown>> | null | undefined,
): ReadonlyMap<string, unknown> {
  const values = new Map<string, unknown>();
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (given && Object.hasOwn(given, name)) values.set(name, given[name]);
    else if (definition.defaultValue?.kind === Kind.INT) values.set(name, Number(definition.defaultValue.value));
  }
  return values;
}

/** The list size a field asks for, if it has a size argument with a whole-number value. */
function sizeOf(
  node: FieldNode,
  definition: GraphQLField<unknown, unknown>,
  variables: ReadonlyMap<string, unknown>,
): number | undefined {
  for (const name of SIZE_ARGUMENTS) {
    const given = node.arguments?.find((argument) => argument.name.value === name);
    let value: unknown;
    if (given?.value.kind === Kind.INT) value = Number(given.value.value);
    else if (given?.value.kind === Kind.VARIABLE) value = variables.get(given.value.name.value);
    else if (!given) value = definition.args.find((argument) => argument.name === name)?.defaultValue;
    if (typeof value === 'number' && Number.isInteger(value)) return Math.max(0, value);
  }
  return undefined;
}

/** What the cost reads besides the document: the request's variables and the sizes of lists. */
export interface CostOptions {
  variables?: Readonly<Record<string, unknown>> | null;
  /** Size of a list whose size the query does not give (`api.perPage`). */
  defaultListSize: number;
  /** Most items a list field answers, by `Type.field` (contribution.ts `listSizes`). */
  maxListSizes?: ReadonlyMap<string, number>;
}

export function costOf(
  context: Pick<ValidationContext, 'getSchema' | 'getFragment'>,
  operation: OperationDefinitionNode,
  options: CostOptions,
): number {
  const schema = context.getSchema();
  const memo = new Map<string, number>();
  const visiting = new Set<string>();
  const variables = variableValues(operation, options.variables);

  const field = (node: FieldNode, parent: GraphQLNamedType | undefined, inherited: number | undefined): number => {
    if (node.name.value.startsWith('__')) return 0;
    const definition =
      parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[node.name.value] : undefined;
    if (!definition) return 0; // an unknown field: graphql-js's own rules report it
    const asked = sizeOf(node, definition, variables);
    const most = parent ? options.maxListSizes?.get(`${parent.name}.${node.name.value}`) : undefined;
    const own = asked !== undefined && most !== undefined ? Math.min(asked, most) : asked;
    const type = getNamedType(definition.type);
    if (isListType(getNullableType(definition.type))) {
      const size = own ?? inherited ?? options.defaultListSize;
      return cap(1 + size * (node.selectionSet ? visit(node.selectionSet, type, undefined) : 0));
    }
    return cap(1 + (node.selectionSet ? visit(node.selectionSet, type, own) : 0));
  };

  const visit = (
    set: SelectionSetNode,
    parent: GraphQLNamedType | undefined,
    inherited: number | undefined,
  ): number => {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        total += field(selection, parent, inherited);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        total += visit(
          selection.selectionSet,
          selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent,
          inherited,
        );
      } else {
        const name = selection.name.value;
        const key = `${name}\0${inherited ?? ''}`;
        const fragment = context.getFragment(name);
        if (!fragment || visiting.has(name)) continue;
        let value = memo.get(key);
        if (value === undefined) {
          visiting.add(name);
          value = visit(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value), inherited);
          visiting.delete(name);
          memo.set(key, value);
        }
        total += value;
      }
    }
    return cap(total);
  };

  return visit(operation.selectionSet, schema.getRootType(operation.operation) ?? undefined, undefined);
}
