/**
 * The errors of a model's write statement, told in the model's words. PostgreSQL names columns
 * (`published_at`, `author_id`) where the client sent fields (`publishedAt`, `author`); the
 * model knows the mapping, so a write's refusal is the AppError shared/errors/pg-errors.ts maps
 * its SQLSTATE to, with `data.model` and `data.field` (and the message) naming the model and the
 * field (`data.fields` for a key of several). Anything else (an error of no known class, a lost
 * connection, a refusal for now) passes unchanged.
 */
import { AppError } from '../../../shared/errors/app-error.ts';
import { pgErrorToAppError } from '../../../shared/errors/pg-errors.ts';
import type { ModelShape } from './shape.ts';

/** The columns a unique or foreign-key violation names in its detail: `Key (author_id)=(7) …`. */
const KEY_COLUMNS = /^Key \(([^)]*)\)=/;

/** The columns the server names for `error`: its `column_name`, else those of its `Key (…)` detail. */
function columnsOf(error: { column_name?: unknown; detail?: unknown }): string[] {
  if (typeof error.column_name === 'string' && error.column_name !== '') return [error.column_name];
  const key = typeof error.detail === 'string' ? KEY_COLUMNS.exec(error.detail) : null;
  return key ? key[1].split(',').map((column) => column.trim().replace(/^"|"$/g, '')) : [];
}

/** `error` as the client should read it: a mapped PostgreSQL error naming the model's fields. */
export function modelWriteError(shape: ModelShape, error: unknown): unknown {
  const mapped = pgErrorToAppError(error);
  if (!mapped || mapped.status >= 500) return error;
  const byColumn = new Map(shape.fields.map((field) => [field.column, field.name]));
  const fields = columnsOf(error as { column_name?: unknown; detail?: unknown })
    .map((column) => byColumn.get(column))
    .filter((name) => name !== undefined);
  // the column and the constraint are the database's names; the constraint stays only when no
  // field is known (a check constraint's name is then the one hint at the rule broken)
  const { field: _column, constraint, ...data } = mapped.data ?? {};
  if (fields.length === 1) data.field = fields[0];
  else if (fields.length > 1) data.fields = fields;
  else if (constraint !== undefined) data.constraint = constraint;
  return new AppError(mapped.status, fields.length > 0 ? `${mapped.message}: ${fields.join(', ')}` : mapped.message, {
    code: mapped.code,
    data: { model: shape.name, ...data },
    cause: error,
  });
}
