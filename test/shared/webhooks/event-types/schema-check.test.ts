/**
 * Event-type schemas (shared/webhooks/event-types/schema-check.ts): their `pattern` and
 * `patternProperties` keep JSON Schema's meaning (a search, anchored only by the pattern) but run
 * on a linear-time engine, so no schema can hold a process on an event's data; a pattern that
 * engine does not run, or one too large, refuses the schema.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isAppError } from '../../../../shared/errors/app-error.ts';
import { createSchemaCompiler, MAX_PATTERN_PROGRAM } from '../../../../shared/webhooks/event-types/schema-check.ts';

const compiler = createSchemaCompiler();
const SCHEMA_CHECK = fileURLToPath(new URL('../../../../shared/webhooks/event-types/schema-check.ts', import.meta.url));

describe('schema patterns', () => {
  it('a pattern that backtracks catastrophically in JavaScript answers at once on long data', () => {
    // in a process of its own, bounded: on JavaScript's engine this validation takes hours, and a
    // synchronous loop in this process would stop every timer, the test's timeout included
    const script = `
      const { createSchemaCompiler } = await import(${JSON.stringify(SCHEMA_CHECK)});
      const validate = createSchemaCompiler().compile({ type: 'string', pattern: '(a+)+$' });
      process.stdout.write(JSON.stringify([validate('a'.repeat(50000) + '!'), validate('xaaa')]));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 60_000,
      encoding: 'utf8',
    });
    assert.equal(run.signal, null, 'the validation finished (it was not stopped at the bound)');
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), [false, true]);
  });

  it('pattern searches the string and patternProperties picks the names it matches, as JSON Schema says', () => {
    const validate = compiler.compile({
      type: 'object',
      properties: { sku: { type: 'string', pattern: '[0-9]{3}' }, code: { type: 'string', pattern: '^[A-Z]{2}$' } },
      patternProperties: { '^x_': { type: 'number' } },
    });
    assert.equal(validate({ sku: 'ab-123-cd', code: 'FR', x_total: 3 }), true);
    assert.equal(validate({ sku: 'ab-12' }), false, 'no three digits anywhere');
    assert.equal(validate({ code: 'FRA' }), false, 'anchored by the pattern itself');
    assert.equal(validate({ x_total: 'three' }), false, 'a name the pattern matches takes its schema');
    assert.equal(validate({ y_total: 'three' }), true);
  });

  it('a pattern the linear engine does not run, or too large a one, refuses the schema with APP_WEBHOOK_EVENT_SCHEMA_INVALID', () => {
    for (const [pattern, reason] of [
      ['(a)\\1', /not one this service runs \(RE2 syntax/],
      ['(?=a)b', /not one this service runs \(RE2 syntax/],
      [`(${'[a-z]'.repeat(MAX_PATTERN_PROGRAM)})`, /too large \(\d+ instructions, at most 2000\)/],
    ] as const) {
      assert.throws(
        () => compiler.compile({ type: 'string', pattern }),
        (error: unknown) =>
          isAppError(error) &&
          error.status === 422 &&
          error.code === 'APP_WEBHOOK_EVENT_SCHEMA_INVALID' &&
          reason.test(error.message),
        pattern.slice(0, 20),
      );
    }
    assert.throws(
      () => compiler.compile({ type: 'object', patternProperties: { '(?<=x)y': {} } }),
      (error: unknown) => isAppError(error) && error.code === 'APP_WEBHOOK_EVENT_SCHEMA_INVALID',
    );
  });
});
