/**
 * Model declarations as JSON Schema components (docs/models.md):
 * per model `<Name>` (the public form: `externalId`, the fields, foreign keys as the referenced
 * `externalId`, timestamps), `<Name>Resource` (the HAL envelope, with a link per reference),
 * `<Name>Collection` and `<Name>Create`/`<Name>Update` (the fields `permit` accepts).
 */
import type { Field, ModelShape } from '../model-framework/data/shape.ts';
import { Types } from '../model-framework/data/types.ts';
import { OWN_RELS } from '../hal/reference-links.ts';
import { collectionOf, ref, type Json } from './components.ts';

/** JSON Schema of one field's value (a required field is never null). */
export function fieldSchema(
  field: Pick<Field, 'type' | 'required' | 'ref' | 'hasDefault' | 'default'> & Partial<Pick<Field, 'min' | 'max'>>,
): Json {
  const nullable = (type: string): string | string[] => (field.required ? type : [type, 'null']);
  const range: Json = {
    ...(field.min === undefined ? {} : { minimum: field.min }),
    ...(field.max === undefined ? {} : { maximum: field.max }),
  };
  const base: Json = (() => {
    switch (field.type) {
      case Types.STRING:
        return { type: nullable('string') };
      case Types.BOOLEAN:
        return { type: nullable('boolean') };
      case Types.INTEGER:
        return { type: nullable('integer'), ...range };
      case Types.NUMBER:
        return { type: nullable('number'), ...range };
      case Types.DATE:
        return { type: nullable('string'), format: 'date-time' };
      case Types.ObjectId:
        return { type: nullable('string'), description: `The \`externalId\` of a ${field.ref} record.` };
      default:
        return { description: 'Any JSON value.' };
    }
  })();
  const constant = field.hasDefault && typeof field.default !== 'function' && field.default !== undefined;
  return constant ? { ...base, default: field.default } : base;
}

/** The component names of a model's schemas. */
export const modelSchemaNames = (name: string) => ({
  record: name,
  resource: `${name}Resource`,
  collection: `${name}Collection`,
  create: `${name}Create`,
  update: `${name}Update`,
});

/** The schemas of one model, by component name. */
export function modelSchemas(shape: ModelShape): Json {
  const names = modelSchemaNames(shape.name);
  const fields = Object.fromEntries(shape.fields.map((field) => [field.name, fieldSchema(field)]));
  const timestamps = shape.timestamps
    ? {
        createdAt: { type: 'string', format: 'date-time', readOnly: true },
        updatedAt: { type: 'string', format: 'date-time', readOnly: true },
      }
    : {};
  const writable = Object.fromEntries(shape.fields.map((field) => [field.name, fieldSchema(field)]));
  // a reference is also a link to the record it names (api/hal/reference-links.ts)
  const referenceLinks = Object.fromEntries(
    shape.references
      .filter((field) => !OWN_RELS.has(field.name))
      .map((field) => [
        field.name,
        {
          allOf: [ref('schemas', 'HalLink')],
          description: `The ${field.ref} record \`${field.name}\` names; present when ${field.ref} records are routed with \`show\` and the caller may show this one.`,
        },
      ]),
  );
  return {
    [names.record]: {
      type: 'object',
      description: `The public form of a ${shape.name} record.`,
      required: ['externalId', ...shape.fields.map((field) => field.name), ...Object.keys(timestamps)],
      properties: { externalId: { type: 'string', readOnly: true }, ...fields, ...timestamps },
    },
    [names.resource]: {
      allOf: [
        ref('schemas', 'HalResource'),
        ref('schemas', names.record),
        ...(Object.keys(referenceLinks).length > 0
          ? [{ type: 'object', properties: { _links: { type: 'object', properties: referenceLinks } } }]
          : []),
      ],
    },
    [names.collection]: collectionOf(shape.collection, names.resource),
    [names.create]: {
      type: 'object',
      description: 'Fields a client may set on create (another is refused: 422 `APP_BODY_FIELD_UNKNOWN`).',
      additionalProperties: false,
      required: shape.fields.filter((field) => field.required && !field.hasDefault).map((field) => field.name),
      properties: writable,
    },
    [names.update]: {
      type: 'object',
      description: 'Fields a client may change (another is refused: 422 `APP_BODY_FIELD_UNKNOWN`).',
      additionalProperties: false,
      properties: writable,
    },
  };
}

/** The schemas of every model. */
export function allModelSchemas(shapes: readonly ModelShape[]): Json {
  return Object.assign({}, ...shapes.map(modelSchemas)) as Json;
}
