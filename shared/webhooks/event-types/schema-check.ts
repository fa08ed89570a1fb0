/**
 * JSON Schema (draft 2020-12) for events' `data`, with ajv: a type's schema is checked when it is
 * stored, compiled once per version, and an event's data checked against it at emit. Formats are
 * not asserted (ajv without ajv-formats treats them as annotations, as draft 2020-12 allows), and
 * patterns run on a linear-time engine (`linearPatterns`).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';
import { unprocessable } from '../../errors/app-error.ts';
import { programSize } from '../linear-pattern.ts';

/** Most instructions of a schema pattern's program (what one character of an event's data can cost it). */
export const MAX_PATTERN_PROGRAM = 2000;

/**
 * The engine of the schemas' `pattern` and `patternProperties` (ajv's `code.regExp`): re2js, so
 * that no pattern a type's schema brings can backtrack catastrophically on an event's data (with
 * JavaScript's own engine, `(a+)+$` against 30 characters of data holds the process for minutes).
 * A pattern RE2 does not run (backreferences, lookaround) or too large a program refuses the schema.
 */
const linearPatterns = Object.assign(
  (pattern: string) => {
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(pattern);
    } catch (error) {
      throw new Error(
        `pattern ${JSON.stringify(pattern)} is not one this service runs (RE2 syntax: no backreferences or lookaround): ${(error as Error).message}`,
      );
    }
    const size = programSize(compiled);
    if (size !== undefined && size > MAX_PATTERN_PROGRAM)
      throw new Error(
        `pattern ${JSON.stringify(pattern)} is too large (${size} instructions, at most ${MAX_PATTERN_PROGRAM})`,
      );
    // the text is ajv's key for the compiled pattern within a schema
    return { test: (text: string) => compiled.matcher(text).find(), toString: () => pattern };
  },
  { code: 'linearPatterns' },
);

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
      const ajv = new Ajv2020({
        allErrors: true,
        strict: false,
        validateFormats: false,
        code: { regExp: linearPatterns },
      });
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
