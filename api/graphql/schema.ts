/**
 * Schema assembly (docs/graphql.md): every
 * contribution's SDL and resolvers merged with `@graphql-tools/merge` into one executable
 * schema. A merge that would silently drop or override something is refused instead, and every
 * problem names the sources (models) involved:
 *
 * | Problem                                              | Example                                        |
 * |------------------------------------------------------|------------------------------------------------|
 * | SDL that does not parse                              | `model Post: graphql.types: Syntax Error ...`  |
 * | one name declared as two kinds                       | `Post` a type in one model, an input in another|
 * | one field declared with two types                    | `Post.id` is `ID` here and `Int` there         |
 * | one field resolved by two sources                    | `Query.posts` resolved by two models           |
 * | a resolver for a type or field the SDL does not have | `Query.postz` resolved, declared nowhere       |
 * | what graphql-js finds in the merged schema           | no `Query` type, an unknown type referenced    |
 */
import { mergeResolvers, mergeTypeDefs } from '@graphql-tools/merge';
import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  GraphQLScalarType,
  Kind,
  parse,
  print,
  validateSchema,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import type { Contribution } from './contribution.ts';

/** Why the merged schema cannot be served: every problem, and every source a problem names. */
export class GraphqlSchemaError extends Error {
  readonly problems: readonly string[];
  readonly sources: readonly string[];
  constructor(problems: readonly string[], sources: readonly string[]) {
    const involved = sources.length > 0 ? ` (${sources.join(', ')})` : '';
    super(`the GraphQL schema does not compile${involved}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'GraphqlSchemaError';
    this.problems = problems;
    this.sources = sources;
  }
}

type TypeKind = 'type' | 'interface' | 'input' | 'enum' | 'union' | 'scalar' | 'directive';

const KINDS: Partial<Record<Kind, TypeKind>> = {
  [Kind.OBJECT_TYPE_DEFINITION]: 'type',
  [Kind.OBJECT_TYPE_EXTENSION]: 'type',
  [Kind.INTERFACE_TYPE_DEFINITION]: 'interface',
  [Kind.INTERFACE_TYPE_EXTENSION]: 'interface',
  [Kind.INPUT_OBJECT_TYPE_DEFINITION]: 'input',
  [Kind.INPUT_OBJECT_TYPE_EXTENSION]: 'input',
  [Kind.ENUM_TYPE_DEFINITION]: 'enum',
  [Kind.ENUM_TYPE_EXTENSION]: 'enum',
  [Kind.UNION_TYPE_DEFINITION]: 'union',
  [Kind.UNION_TYPE_EXTENSION]: 'union',
  [Kind.SCALAR_TYPE_DEFINITION]: 'scalar',
  [Kind.SCALAR_TYPE_EXTENSION]: 'scalar',
  [Kind.DIRECTIVE_DEFINITION]: 'directive',
};

const KIND_NAMES: Record<TypeKind, string> = {
  type: 'an object type',
  interface: 'an interface',
  input: 'an input',
  enum: 'an enum',
  union: 'a union',
  scalar: 'a scalar',
  directive: 'a directive',
};

/** Who declares what, across all contributions. */
interface Declarations {
  /** type name -> kind -> sources */
  kinds: Map<string, Map<TypeKind, Set<string>>>;
  /** `Type.field` -> printed type -> sources (fields, input fields and enum values; enum values print as `value`) */
  members: Map<string, Map<string, Set<string>>>;
}

const add = <K, V>(map: Map<K, V>, key: K, make: () => V): V => {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
};

const list = (sources: Iterable<string>) => [...sources].join(' and ');

function declare(declarations: Declarations, source: string, definition: DefinitionNode): void {
  const kind = KINDS[definition.kind];
  if (!kind || !('name' in definition) || !definition.name) return;
  const name = kind === 'directive' ? `@${definition.name.value}` : definition.name.value;
  add(
    add(declarations.kinds, name, () => new Map()),
    kind,
    () => new Set(),
  ).add(source);
  const members: Array<{ name: string; printed: string }> = [];
  if ('fields' in definition && definition.fields) {
    for (const field of definition.fields) members.push({ name: field.name.value, printed: print(field.type) });
  }
  if ('values' in definition && definition.values) {
    for (const value of definition.values) members.push({ name: value.name.value, printed: 'value' });
  }
  for (const member of members) {
    add(
      add(declarations.members, `${name}.${member.name}`, () => new Map()),
      member.printed,
      () => new Set(),
    ).add(source);
  }
}

const isResolver = (value: unknown) =>
  typeof value === 'function' ||
  (typeof value === 'object' && value !== null && ('resolve' in value || 'subscribe' in value));

/** Problems of the resolver maps against what the SDL declares. */
function resolverProblems(
  contributions: readonly Contribution[],
  declarations: Declarations,
  involved: Set<string>,
): string[] {
  const problems: string[] = [];
  const resolvedBy = new Map<string, string[]>();
  const declaredBy = (type: string) =>
    [...(declarations.kinds.get(type)?.values() ?? [])].flatMap((sources) => [...sources]);
  for (const { source, resolvers } of contributions) {
    for (const [type, entry] of Object.entries(resolvers ?? {})) {
      const kinds = declarations.kinds.get(type);
      if (!kinds) {
        problems.push(`${source} has resolvers for type ${type}, which no type definition declares`);
        involved.add(source);
        continue;
      }
      if (entry instanceof GraphQLScalarType) {
        if (!kinds.has('scalar')) {
          problems.push(
            `${source} gives a scalar implementation for ${type}, which ${list(new Set(declaredBy(type)))} declares as ${[...kinds.keys()].join('/')}`,
          );
          for (const other of [source, ...declaredBy(type)]) involved.add(other);
        }
        continue;
      }
      if (typeof entry !== 'object' || entry === null) {
        problems.push(`${source}: resolvers.${type} must be an object of field resolvers`);
        involved.add(source);
        continue;
      }
      for (const [field, resolver] of Object.entries(entry)) {
        if (field.startsWith('__')) continue; // __resolveType, __isTypeOf
        const key = `${type}.${field}`;
        if (!declarations.members.has(key)) {
          problems.push(
            `${source} resolves ${key}, but the SDL has no such field (${type} is declared by ${list(new Set(declaredBy(type)))})`,
          );
          for (const other of [source, ...declaredBy(type)]) involved.add(other);
          continue;
        }
        if (!kinds.has('enum') && !isResolver(resolver)) {
          problems.push(`${source}: the resolver of ${key} must be a function`);
          involved.add(source);
          continue;
        }
        add(resolvedBy, key, () => []).push(source);
      }
    }
  }
  for (const [key, sources] of resolvedBy) {
    if (sources.length < 2) continue;
    problems.push(`${key} is resolved by both ${list(sources)}; one of them would silently replace the other`);
    for (const source of sources) involved.add(source);
  }
  return problems;
}

/**
 * The sources a graphql-js message is about: those declaring or mentioning the names it quotes
 * (`Unknown type "Comment".`) or the `Type.field` it names; every source when it names none.
 */
function sourcesNamedIn(message: string, contributions: readonly Contribution[]): string[] {
  const quoted = [
    ...message.matchAll(/"([_A-Za-z][_0-9A-Za-z]*)"|\b([_A-Za-z][_0-9A-Za-z]*)\.[_A-Za-z][_0-9A-Za-z]*\b/g),
  ].map((match) => match[1] ?? match[2]);
  const mentions = (types: string) => quoted.some((name) => new RegExp(`\\b${name}\\b`).test(types));
  const named = contributions.filter(
    (contribution) => typeof contribution.types === 'string' && mentions(contribution.types),
  );
  return (named.length > 0 ? named : contributions).map((contribution) => contribution.source);
}

/**
 * Merges the contributions into one executable schema; throws a {@link GraphqlSchemaError}
 * listing every problem and the sources involved. Two contributions may both declare (or
 * `extend`) a type such as `Query`, each adding fields; they may not disagree.
 */
export function assembleSchema(contributions: readonly Contribution[]): GraphQLSchema {
  const problems: string[] = [];
  const involved = new Set<string>();
  const declarations: Declarations = { kinds: new Map(), members: new Map() };
  const documents: DocumentNode[] = [];
  for (const { source, types } of contributions) {
    if (typeof types !== 'string' || types.trim() === '') {
      problems.push(`${source}: graphql.types must be a non-empty SDL string`);
      involved.add(source);
      continue;
    }
    try {
      const document = parse(types);
      documents.push(document);
      for (const definition of document.definitions) declare(declarations, source, definition);
    } catch (error) {
      problems.push(`${source}: graphql.types: ${(error as Error).message}`);
      involved.add(source);
    }
  }
  for (const [name, kinds] of declarations.kinds) {
    if (kinds.size < 2) continue;
    problems.push(
      `${name} is declared as ${[...kinds].map(([kind, sources]) => `${KIND_NAMES[kind]} by ${list(sources)}`).join(' and as ')}`,
    );
    for (const sources of kinds.values()) for (const source of sources) involved.add(source);
  }
  for (const [key, types] of declarations.members) {
    if (types.size < 2) continue;
    problems.push(
      `${key} is declared as ${[...types].map(([type, sources]) => `${type} by ${list(sources)}`).join(' and as ')}`,
    );
    for (const sources of types.values()) for (const source of sources) involved.add(source);
  }
  problems.push(...resolverProblems(contributions, declarations, involved));
  if (problems.length > 0) throw new GraphqlSchemaError(problems, [...involved]);

  let schema: GraphQLSchema;
  try {
    schema = makeExecutableSchema({
      typeDefs: mergeTypeDefs(documents),
      resolvers: mergeResolvers(contributions.map((contribution) => contribution.resolvers ?? {}) as never),
    });
  } catch (error) {
    const message = (error as Error).message;
    throw new GraphqlSchemaError([message], sourcesNamedIn(message, contributions));
  }
  const invalid = validateSchema(schema);
  if (invalid.length > 0) {
    const messages = invalid.map((error) => error.message);
    throw new GraphqlSchemaError(messages, [
      ...new Set(messages.flatMap((message) => sourcesNamedIn(message, contributions))),
    ]);
  }
  return schema;
}
