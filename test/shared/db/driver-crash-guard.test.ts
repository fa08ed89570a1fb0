import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isDriverNullSocketWrite,
  isDriverTypesQueryLost,
  survivedDriverCrash,
} from '../../../shared/db/driver-crash-guard.ts';

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

  it("recognises the driver's array-types query lost with its connection, and not that query's other errors or another query", () => {
    // the driver's text (postgres 3.4.9, src/connection.js, fetchArrayTypes), put on the error it rejects with
    const types = `
      select b.oid, b.typarray
      from pg_catalog.pg_type a
      left join pg_catalog.pg_type b on b.oid = a.typelem
      where a.typcategory = 'A'
      group by b.oid, b.typarray
      order by b.oid
    `;
    const rejected = (code: string, query: string) =>
      Object.defineProperties(Object.assign(new Error(`read ${code}`), { code }), { query: { value: query } });
    for (const code of ['ECONNRESET', 'CONNECTION_CLOSED', 'CONNECTION_DESTROYED'])
      assert.equal(isDriverTypesQueryLost(rejected(code, types)), true, code);
    assert.equal(
      isDriverTypesQueryLost(rejected('57014', types)),
      false,
      'cancelled by the server: not a lost connection',
    );
    assert.equal(isDriverTypesQueryLost(rejected('ECONNRESET', 'select 1')), false, 'another query');
    assert.equal(isDriverTypesQueryLost(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })), false);
    assert.equal(isDriverTypesQueryLost(null), false);
    assert.match(String(survivedDriverCrash(rejected('ECONNRESET', types))), /array types/);
    assert.equal(survivedDriverCrash(new Error('anything else')), undefined);
  });
});
