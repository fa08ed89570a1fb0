import { badRequest, unprocessable } from '../../../shared/errors/app-error.ts';
import { EXTERNAL_ID } from './external-id.ts';
import type { Field, ModelShape } from './shape.ts';
import { Types } from './types.ts';

export interface FieldProblem {
  field: string;
  message: string;
}

type Checked = { value: unknown } | { problem: string };

/**
 * Whether the day exists in its month: `Date` reads 2026-02-30 as 2 March, which would store
 * another day than the one the client sent.
 */
function isCalendarDay(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * A number within its field's `min` and `max` (an `INTEGER` field's default: the `integer`
 * column's range), so a value the column cannot hold is this field's problem, not the database's
 * out-of-range error naming no field.
 */
function inRange(field: Field, value: number): Checked {
  const { min, max } = field;
  if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
    if (min !== undefined && max !== undefined) return { problem: `must be between ${min} and ${max}` };
    return { problem: min !== undefined ? `must be at least ${min}` : `must be at most ${max}` };
  }
  return { value };
}

/** Reads one value as its field's type; form bodies send text, so text forms are accepted too. */
function checkValue(field: Field, raw: unknown): Checked {
  if (raw === null) return field.required ? { problem: 'is required' } : { value: null };
  switch (field.type) {
    case Types.STRING:
      return typeof raw === 'string' ? { value: raw } : { problem: 'must be text' };
    case Types.BOOLEAN:
      if (typeof raw === 'boolean') return { value: raw };
      if (raw === 'true' || raw === 'false') return { value: raw === 'true' };
      return { problem: 'must be true or false' };
    case Types.INTEGER: {
      const value = typeof raw === 'string' && /^-?\d{1,16}$/.test(raw) ? Number(raw) : raw;
      return Number.isSafeInteger(value) ? inRange(field, value as number) : { problem: 'must be a whole number' };
    }
    case Types.NUMBER: {
      const value = typeof raw === 'string' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(raw) ? Number(raw) : raw;
      return typeof value === 'number' && Number.isFinite(value)
        ? inRange(field, value)
        : { problem: 'must be a number' };
    }
    case Types.DATE: {
      if (raw instanceof Date && !Number.isNaN(raw.getTime())) return { value: raw };
      const parts =
        typeof raw === 'string'
          ? /^(\d{4})-(\d{2})-(\d{2})([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(raw)
          : null;
      if (parts && isCalendarDay(Number(parts[1]), Number(parts[2]), Number(parts[3]))) {
        const date = new Date(raw as string);
        if (!Number.isNaN(date.getTime())) return { value: date };
      }
      return { problem: 'must be an ISO 8601 date-time' };
    }
    case Types.JSON:
      return raw === undefined ? { problem: 'must be a JSON value' } : { value: raw };
    case Types.ObjectId:
      return typeof raw === 'string' && EXTERNAL_ID.test(raw)
        ? { value: raw }
        : { problem: `must be the externalId of a ${field.ref}` };
  }
}

/**
 * Checks a create or update input given in public form (field names, foreign keys as
 * `externalId`) and returns the values to write, defaults applied on create. Every problem is
 * reported at once: 422 `APP_VALIDATION_FAILED`, `data.errors` = `[{field, message}]`. An input
 * that is not an object of fields (an array, a string: a request body passed on as it came) is
 * 400 `APP_BODY_INVALID`, as the controller helpers answer such a body.
 */
export function checkInput(
  shape: ModelShape,
  input: Record<string, unknown>,
  mode: 'create' | 'update',
): Record<string, unknown> {
  if (input === undefined) return checkInput(shape, {}, mode);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    const given = Array.isArray(input) ? 'an array' : input === null ? 'null' : typeof input;
    throw badRequest(`${shape.name} input must be an object of fields, not ${given}`, {
      code: 'APP_BODY_INVALID',
      data: { reason: `the input is ${given}; send an object of fields` },
    });
  }
  const problems: FieldProblem[] = [];
  const values: Record<string, unknown> = {};
  const known = new Set(shape.fields.map((field) => field.name));
  for (const key of Object.keys(input)) {
    if (!known.has(key)) problems.push({ field: key, message: 'is not a field of this model' });
  }
  for (const field of shape.fields) {
    let raw = input[field.name];
    if (raw === undefined && mode === 'create' && field.hasDefault) {
      raw = typeof field.default === 'function' ? (field.default as () => unknown)() : field.default;
    }
    if (raw === undefined) {
      if (mode === 'create' && field.required) problems.push({ field: field.name, message: 'is required' });
      continue;
    }
    const checked = checkValue(field, raw);
    if ('problem' in checked) problems.push({ field: field.name, message: checked.problem });
    else values[field.name] = checked.value;
  }
  if (problems.length > 0) {
    const summary = problems.map((problem) => `${problem.field} ${problem.message}`).join('; ');
    throw unprocessable(`${shape.name} is not valid: ${summary}`, {
      code: 'APP_VALIDATION_FAILED',
      data: { errors: problems },
    });
  }
  return values;
}
