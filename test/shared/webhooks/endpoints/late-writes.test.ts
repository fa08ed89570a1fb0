/**
 * A write to the endpoint store that does not answer within the guard's time limit is answered
 * 503 `APP_STORE_UNAVAILABLE`, but the call goes on and may still complete (a statement waiting
 * behind a lock lands once the lock is released). The core follows such a write when it lands,
 * so that the store and the gate rows in PostgreSQL agree again: a registration is removed again
 * (the caller was told it failed), a change reaches the gate row (the gate decides whether
 * deliveries go out), and a removal takes the gate row and its deliveries with it. The store is
 * one made in the test whose writes wait until the test lets them through.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { guardStore } from '../../../../shared/webhooks/endpoint-stores/guard.ts';
import type { EndpointStore } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { registerEndpoint, removeEndpoint, updateEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { inTestStore } from '../../../helpers/endpoint-store.ts';
import { eventually } from '../../../helpers/poll.ts';
import { captureLogger, depsOf } from '../fixtures.ts';

const db = await createTestDatabase();
/** The guard's time limit in these tests: short, the writes are held far longer. */
const LIMIT_MS = 100;

/** An in-test store whose writes wait while held, and count those that completed and failed. */
function heldStore() {
  const inner = inTestStore('registry', 'mysql');
  let held: Promise<void> | undefined;
  let release = () => {};
  let completed = 0;
  let failed = 0;
  const write =
    <A extends unknown[], T>(call: (...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      if (held) await held;
      try {
        const outcome = await call(...args);
        completed += 1;
        return outcome;
      } catch (error) {
        failed += 1;
        throw error;
      }
    };
  const store: EndpointStore = {
    ...inner,
    insert: write(inner.insert),
    update: write(inner.update),
    delete: write(inner.delete),
  };
  return {
    inner,
    store,
    hold() {
      held = new Promise((resolve) => (release = resolve));
    },
    release() {
      held = undefined;
      release();
    },
    completed: () => completed,
    failed: () => failed,
  };
}

function setUp() {
  const held = heldStore();
  const capture = captureLogger(db.config);
  const deps = depsOf(db, {}, { endpoints: guardStore(held.store, { timeoutMs: LIMIT_MS }), log: capture.log });
  return { held, deps, logs: capture.text };
}

const isUnavailable = (error: unknown) => (error as { code?: string }).code === 'APP_STORE_UNAVAILABLE';

async function gateOf(id: string) {
  const [gate] = await db.sql<{ disabled_at: Date | null; version: number }[]>`
    select disabled_at, version from app_endpoint_gate where endpoint_id = ${id}`;
  return gate;
}

describe('a store write answered 503 after the time limit that lands later', () => {
  it('a registration: 503, and the record is removed again once it lands; no gate row stays', async () => {
    const { held, deps, logs } = setUp();
    held.hold();
    await assert.rejects(
      registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/late', events: ['*'], owner: 'late-insert' }),
      isUnavailable,
    );
    const gates = await db.sql`select 1 from app_endpoint_gate where owner = 'late-insert'`;
    assert.equal(gates.length, 0, 'the gate row went at once');
    held.release();
    await eventually(() => held.completed() === 2, 5_000, 'the insert to land and be removed again');
    assert.equal((await held.inner.list({})).total, 0, 'nothing is left in the store');
    assert.match(logs(), /the registration of endpoint ep_\w+ completed in the store after it was answered 503/);
  });

  it('a change (disable): 503, and the gate row follows the record once it lands', async () => {
    const { held, deps } = setUp();
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/late',
      events: ['*'],
      owner: 'late-update',
    });
    held.hold();
    await assert.rejects(updateEndpoint(deps, OPERATOR, endpoint.id, { enabled: false }), isUnavailable);
    assert.equal((await gateOf(endpoint.id)).disabled_at, null, 'not yet: the change has not landed');
    held.release();
    const gate = await eventually(
      async () => {
        const current = await gateOf(endpoint.id);
        return current.disabled_at !== null ? current : undefined;
      },
      5_000,
      'the gate row to follow the late change',
    );
    assert.equal(gate.version, 2);
    assert.notEqual((await held.inner.get(endpoint.id))?.disabledAt, null, 'the store holds the change');
  });

  it('a removal: 503, and the gate row goes too once it lands', async () => {
    const { held, deps } = setUp();
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/late',
      events: ['*'],
      owner: 'late-delete',
    });
    held.hold();
    await assert.rejects(removeEndpoint(deps, OPERATOR, endpoint.id), isUnavailable);
    assert.ok(await gateOf(endpoint.id), 'not yet: the removal has not landed');
    held.release();
    await eventually(async () => (await gateOf(endpoint.id)) === undefined, 5_000, 'the gate row to go');
    assert.equal(await held.inner.get(endpoint.id), null);
  });

  it('a write that fails in the end leaves things as the 503 said', async () => {
    const { held, deps } = setUp();
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/late',
      events: ['*'],
      owner: 'late-failure',
    });
    held.hold();
    await assert.rejects(updateEndpoint(deps, OPERATOR, endpoint.id, { enabled: false }), isUnavailable);
    held.inner.behave(new Error('refused in the end'));
    held.release();
    await eventually(() => held.failed() === 1, 5_000, 'the held change to fail');
    held.inner.behave('answer');
    assert.deepEqual({ ...(await gateOf(endpoint.id)) }, { disabled_at: null, version: 1 });
    assert.equal((await held.inner.get(endpoint.id))?.disabledAt, null);
  });
});
