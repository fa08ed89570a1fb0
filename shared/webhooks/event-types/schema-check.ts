/**
 * JSON Schema (draft 2020-12) for events' `data`, with ajv: a type's schema is checked when it is
 * stored, compiled once per version, and an event's data checked against it at emit. Formats are
 * not asserted (ajv without ajv-formats treats them as annotations, as draft 2020-12 allows).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { unprocessable } from '../../errors/app-error.ts';

/** What the refusals carry of ajv's errors: where, what rule, why (at most 20). */
export const validatorErrors = (errors: readonly ErrorObject[] | null | undefined) =>
  (errors ?? []).slice(0, 20).map((error) => ({
    instancePath: error.instancePath,
    keyword: error.keyword,
    message: error.message ?? error.keyword,
    params: error.params,
  }));

/**
 * A compiler of data schemas; compiled validators are cached by the caller. Each schema gets an
 * ajv of its own: two versions of one type may carry the same `$id`, which one ajv refuses twice.
 */
export function createSchemaCompiler() {
  return {
    /** The validator of `schema`. Throws 422 `APP_WEBHOOK_EVENT_SCHEMA_INVALID` with ajv's reasons. */
    compile(schema: unknown): ValidateFunction {
      const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
      if (!(typeof schema === 'boolean' || (schema !== null && typeof schema === 'object' && !Array.isArray(schema)))) {
        throw unprocessable('invalid event-type schema: must be a JSON Schema (an object or a boolean)', {
          code: 'APP_WEBHOOK_EVENT_SCHEMA_INVALID',
          data: { field: 'schema' },
        });
      }
      if (!ajv.validateSchema(schema as object)) {
        throw unprocessable('invalid event-type schema: it is not a valid JSON Schema (draft 2020-12)', {
          code: 'APP_WEBHOOK_EVENT_SCHEMA_INVALID',
          data: { field: 'schema', errors: validatorErrors(ajv.errors) },
        });
      }
      try {
        return ajv.compile(schema as object);
      } catch (error) {
        throw unprocessable(`invalid event-type schema: ${(error as Error).message}`, {
          code: 'APP_WEBHOOK_EVENT_SCHEMA_INVALID',
          data: { field: 'schema' },
        });
      }
    },
  };
}
export type SchemaCompiler = ReturnType<typeof createSchemaCompiler>;
