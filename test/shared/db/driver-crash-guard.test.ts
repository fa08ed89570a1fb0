import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDriverNullSocketWrite } from '../../../shared/db/driver-crash-guard.ts';

/** An error shaped like the driver's (postgres 3.4.9, src/connection.js, nextWrite from setImmediate). */
function driverError(message: string, frame: string): TypeError {
  const error = new TypeError(message);
  error.stack = `TypeError: ${message}\n    at ${frame}\n    at process.processImmediate (node:internal/timers:574:21)`;
  return error;
}

describe('postgres driver crash guard', () => {
  it("recognises exactly the driver's null-socket write, and nothing else", () => {
    const frame = 'Immediate.nextWrite (file:///app/node_modules/postgres/src/connection.js:255:22)';
    assert.equal(isDriverNullSocketWrite(driverError("Cannot read properties of null (reading 'write')", frame)), true);
    assert.equal(
      isDriverNullSocketWrite(
        driverError("Cannot read properties of null (reading 'write')", 'nextWrite (file:///app/api/mine.ts:1:1)'),
      ),
      false,
      'another module',
    );
    assert.equal(
      isDriverNullSocketWrite(driverError("Cannot read properties of null (reading 'end')", frame)),
      false,
      'another property',
    );
    assert.equal(
      isDriverNullSocketWrite(new Error("Cannot read properties of null (reading 'write')")),
      false,
      'not a TypeError',
    );
    assert.equal(isDriverNullSocketWrite('nextWrite'), false);
  });
});
