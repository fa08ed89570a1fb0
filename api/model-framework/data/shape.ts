import { COLLECTION_NAME, FIELD_NAME, IDENTIFIER, kebabCase, pluralize, snakeCase } from './names.ts';
import { Types, type FieldDefinition, type FieldType, type ModelDeclaration } from './types.ts';

/** One field of a compiled model. */
export interface Field {
  name: string;
  column: string;
  type: FieldType;
  required: boolean;
  hasDefault: boolean;
  default: unknown;
  ref: string | undefined;
  /** Smallest and largest value of an `INTEGER` or `NUMBER` field (an `INTEGER`'s default: the `integer` column's range). */
  min: number | undefined;
  max: number | undefined;
}

/** The range of a PostgreSQL `integer` column, an `INTEGER` field's unless it declares another. */
export const INTEGER_RANGE = { min: -2_147_483_648, max: 2_147_483_647 } as const;

/** A declaration with every default filled in and checked: what the queries and `publish()` read. */
export interface ModelShape {
  name: string;
  collection: string;
  table: string;
  fields: readonly Field[];
  /** Foreign-key fields (type `ObjectId`). */
  references: readonly Field[];
  timestamps: boolean;
  /** Every column a record is read with, in order. */
  columns: readonly string[];
  declaration: ModelDeclaration;
}

const FIELD_TYPES = new Set<string>(Object.values(Types));
const RESERVED_FIELDS = new Set(['id', 'externalId', 'createdAt', 'updatedAt', '_links', '_embedded']);
const RESERVED_COLUMNS = new Set(['id', 'external_id', 'created_at', 'updated_at']);

/**
 * Fills in a declaration's defaults (collection, table, columns) and lists every problem with
 * it, so a bad model stops the boot with one message naming them all.
 */
export function compileShape(declaration: ModelDeclaration): { shape: ModelShape; problems: string[] } {
  const problems: string[] = [];
  const name = declaration?.name;
  const label = `model ${typeof name === 'string' ? name : '(unnamed)'}`;
  if (typeof name !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(name))
    problems.push(`${label}: name must be PascalCase letters and digits`);
  const plural = pluralize(typeof name === 'string' ? name : 'model');
  const collection = declaration?.collection ?? kebabCase(plural);
  const table = declaration?.table ?? snakeCase(plural);
  if (!COLLECTION_NAME.test(collection))
    problems.push(`${label}: collection "${collection}" must be lower-case letters, digits and dashes`);
  if (!IDENTIFIER.test(table)) problems.push(`${label}: table "${table}" must be a lower-case SQL identifier`);
  const timestamps = declaration?.options?.timestamps === true;

  const fields: Field[] = [];
  const columns = new Set<string>();
  const schema = declaration?.schema;
  if (typeof schema !== 'object' || schema === null)
    problems.push(`${label}: schema must be an object of field definitions`);
  for (const [fieldName, definition] of Object.entries(schema ?? {})) {
    const where = `${label}, field ${fieldName}`;
    if (!FIELD_NAME.test(fieldName)) problems.push(`${where}: not a valid field name`);
    if (RESERVED_FIELDS.has(fieldName)) problems.push(`${where}: the name is reserved`);
    if (!definition || !FIELD_TYPES.has(definition.type)) {
      problems.push(`${where}: type must be one of ${[...FIELD_TYPES].join(', ')}`);
      continue;
    }
    if (definition.type === Types.ObjectId && typeof definition.ref !== 'string')
      problems.push(`${where}: an ObjectId field needs \`ref\` (a model name)`);
    if (definition.type !== Types.ObjectId && definition.ref !== undefined)
      problems.push(`${where}: only ObjectId fields take \`ref\``);
    const range = fieldRange(definition);
    for (const problem of range.problems) problems.push(`${where}: ${problem}`);
    const column = definition.column ?? snakeCase(fieldName);
    if (!IDENTIFIER.test(column)) problems.push(`${where}: column "${column}" must be a lower-case SQL identifier`);
    if (RESERVED_COLUMNS.has(column) || columns.has(column))
      problems.push(`${where}: column "${column}" is reserved or used twice`);
    columns.add(column);
    fields.push({
      name: fieldName,
      column,
      type: definition.type,
      required: definition.required === true,
      hasDefault: 'default' in definition,
      default: definition.default,
      ref: definition.ref,
      min: range.min,
      max: range.max,
    });
  }
  const shape: ModelShape = {
    name,
    collection,
    table,
    fields,
    references: fields.filter((field) => field.type === Types.ObjectId),
    timestamps,
    columns: [
      'id',
      'external_id',
      ...fields.map((field) => field.column),
      ...(timestamps ? ['created_at', 'updated_at'] : []),
    ],
    declaration,
  };
  // the scope limits listings only: show, update and destroy ask the policy, so a scope without
  // one would list a tenant's records while serving every tenant's to anyone naming them
  if (declaration.policyScope !== undefined && typeof declaration.policy !== 'function')
    problems.push(`${label}: policyScope needs a policy (it limits listings; the policy decides each record)`);
  const webhooks = declaration.webhooks;
  if (webhooks !== undefined) {
    const changes = ['created', 'updated', 'deleted'];
    if (
      !Array.isArray(webhooks.events) ||
      webhooks.events.length === 0 ||
      webhooks.events.some((change) => !changes.includes(change))
    ) {
      problems.push(`${label}: webhooks.events must list some of ${changes.join(', ')}`);
    }
    if (
      webhooks.owner !== undefined &&
      !fields.some((field) => field.name === webhooks.owner && field.type === Types.STRING)
    ) {
      problems.push(`${label}: webhooks.owner "${webhooks.owner}" is not a STRING field of the model`);
    }
  }
  return { shape, problems };
}

/**
 * The `min` and `max` of a field: numbers of `INTEGER` and `NUMBER` fields only (whole numbers
 * for `INTEGER`), `min` not above `max`; an `INTEGER` field without them has the `integer`
 * column's range.
 */
function fieldRange(definition: FieldDefinition): { min?: number; max?: number; problems: string[] } {
  const problems: string[] = [];
  const numeric = definition.type === Types.INTEGER || definition.type === Types.NUMBER;
  const given = (['min', 'max'] as const).filter((bound) => definition[bound] !== undefined);
  if (!numeric) {
    for (const bound of given) problems.push(`only INTEGER and NUMBER fields take \`${bound}\``);
    return { problems };
  }
  const whole = definition.type === Types.INTEGER;
  for (const bound of given) {
    const value = definition[bound];
    if (whole ? !Number.isSafeInteger(value) : typeof value !== 'number' || !Number.isFinite(value))
      problems.push(`\`${bound}\` must be a ${whole ? 'whole number (a safe integer)' : 'finite number'}`);
  }
  const min = definition.min ?? (whole ? INTEGER_RANGE.min : undefined);
  const max = definition.max ?? (whole ? INTEGER_RANGE.max : undefined);
  if (problems.length === 0 && min !== undefined && max !== undefined && min > max)
    problems.push(`\`min\` (${min}) is above \`max\` (${max})`);
  return { min, max, problems };
}
