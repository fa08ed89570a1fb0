import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../../../helpers/database.ts';
import { emit } from '../../../../shared/webhooks/events/emit.ts';
import { signingSecrets } from '../../../../shared/webhooks/endpoints/secrets.ts';
import { appError, depsOf, scriptedLookup } from '../fixtures.ts';
import {
  disableEndpoint,
  enableEndpoint,
  registerEndpoint,
  removeEndpoint,
  updateEndpoint,
} from '../../../../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../../../../shared/access/actor.ts';

const db = await createTestDatabase();
const deps = () => depsOf(db);
const lookup = scriptedLookup({ 'public.example.com': ['93.184.215.14'], 'private.example.com': ['10.9.8.7'] });
const strict = () => depsOf(db, { webhooks: { allowHttp: false, allowPrivate: false } }, { lookup });

describe('update', () => {
  it('changes url, events, owner, description and headers, keeping what is not given', async () => {
    const endpoint = await registerEndpoint(strict(), OPERATOR, {
      url: 'https://public.example.com/a',
      events: ['a.*'],
      owner: 'o1',
      description: 'd1',
      headers: { 'X-A': '1' },
    });
    const changed = await updateEndpoint(strict(), OPERATOR, endpoint.id, {
      url: 'https://public.example.com/b',
      events: ['b.*', 'c'],
    });
    assert.equal(changed.url, 'https://public.example.com/b');
    assert.deepEqual(changed.events, ['b.*', 'c']);
    assert.equal(changed.owner, 'o1');
    assert.equal(changed.description, 'd1');
    assert.deepEqual(changed.headers, { 'X-A': '1' });
    assert.ok(changed.updatedAt.getTime() >= endpoint.updatedAt.getTime());
    const cleared = await updateEndpoint(strict(), OPERATOR, endpoint.id, {
      owner: null,
      description: null,
      headers: null,
    });
    assert.equal(cleared.owner, null);
    assert.equal(cleared.description, null);
    assert.deepEqual(cleared.headers, {});
    const replaced = await updateEndpoint(strict(), OPERATOR, endpoint.id, { headers: { 'X-B': '2' }, owner: 'o2' });
    assert.deepEqual(replaced.headers, { 'X-B': '2' }, 'headers are replaced as a whole');
    assert.equal(replaced.owner, 'o2');
  });

  it('refuses an owner with a trailing space, and C1 control characters in the description and the disabled reason', async () => {
    const endpoint = await registerEndpoint(deps(), OPERATOR, { url: 'https://public.example.com/t', events: ['*'] });
    const refusals: [Record<string, unknown>, string][] = [
      [{ owner: 'o1 ' }, 'APP_WEBHOOK_OWNER_INVALID'],
      [{ owner: 'o1\u009b' }, 'APP_WEBHOOK_OWNER_INVALID'],
      [{ description: 'd\u009b2J' }, 'APP_WEBHOOK_DESCRIPTION_INVALID'],
      [{ enabled: false, disabledReason: 'spam\u0085' }, 'APP_WEBHOOK_PATCH_INVALID'],
    ];
    for (const [patch, code] of refusals)
      await assert.rejects(
        updateEndpoint(deps(), OPERATOR, endpoint.id, patch),
        appError(code, 422),
        JSON.stringify(patch),
      );
    const [row] = await db.sql<
      { enabled: boolean }[]
    >`select disabled_at is null as enabled from app_webhooks where id = ${endpoint.id}`;
    assert.equal(row.enabled, true, 'nothing was changed');
  });

  it('checks a new url like registration does, resolving its host again', async () => {
    const endpoint = await registerEndpoint(strict(), OPERATOR, { url: 'https://public.example.com/a', events: ['*'] });
    await assert.rejects(
      updateEndpoint(strict(), OPERATOR, endpoint.id, { url: 'https://private.example.com/x' }),
      appError('APP_WEBHOOK_ADDRESS_REFUSED', 422),
    );
    await assert.rejects(
      updateEndpoint(strict(), OPERATOR, endpoint.id, { url: 'http://public.example.com/x' }),
      appError('APP_WEBHOOK_URL_INVALID', 422),
    );
    await assert.rejects(
      updateEndpoint(strict(), OPERATOR, endpoint.id, { url: 'https://[::1]/x' }),
      appError('APP_WEBHOOK_ADDRESS_REFUSED', 422),
    );
    await assert.rejects(
      updateEndpoint(strict(), OPERATOR, endpoint.id, { events: ['a*'] }),
      appError('APP_WEBHOOK_EVENTS_INVALID', 422),
    );
    await assert.rejects(
      updateEndpoint(strict(), OPERATOR, endpoint.id, { headers: { 'Webhook-Signature': 'x' } }),
      appError('APP_WEBHOOK_HEADERS_INVALID', 422),
    );
    await assert.rejects(
      updateEndpoint(strict(), OPERATOR, endpoint.id, { owner: '' }),
      appError('APP_WEBHOOK_OWNER_INVALID', 422),
    );
    await assert.rejects(
      updateEndpoint(strict(), OPERATOR, endpoint.id, { secret: 'whsec_x' } as never),
      appError('APP_WEBHOOK_PATCH_INVALID', 422),
    );
    const [row] = await db.sql<{ url: string }[]>`select url from app_webhooks where id = ${endpoint.id}`;
    assert.equal(row.url, 'https://public.example.com/a', 'nothing changed');
  });

  it('moving an endpoint to another owner moves its deliveries with it (tenant isolation)', async () => {
    const endpoint = await registerEndpoint(deps(), OPERATOR, {
      url: 'https://127.0.0.1/m',
      events: ['*'],
      owner: 'move-from',
    });
    await updateEndpoint(deps(), OPERATOR, endpoint.id, { owner: 'move-to' });
    assert.deepEqual(await emit(deps(), 'a.b', {}, { owner: 'move-from' }), []);
    assert.equal((await emit(deps(), 'a.b', {}, { owner: 'move-to' })).length, 1);
  });

  it('refuses an unknown id with APP_WEBHOOK_NOT_FOUND', async () => {
    await assert.rejects(
      updateEndpoint(deps(), OPERATOR, 'ep_NOPE', { description: 'x' }),
      appError('APP_WEBHOOK_NOT_FOUND', 404),
    );
  });

  it('does not change the secrets', async () => {
    const endpoint = await registerEndpoint(deps(), OPERATOR, { url: 'https://127.0.0.1/s', events: ['*'] });
    await updateEndpoint(deps(), OPERATOR, endpoint.id, { url: 'https://127.0.0.1/s2' });
    assert.deepEqual(await signingSecrets(deps(), endpoint.id), [endpoint.secret]);
  });
});

describe('disable and enable', () => {
  it('disable records when and why; enable clears both', async () => {
    const endpoint = await registerEndpoint(deps(), OPERATOR, {
      url: 'https://127.0.0.1/d',
      events: ['*'],
      owner: 'dis',
    });
    const disabled = await disableEndpoint(deps(), OPERATOR, endpoint.id, { reason: 'receiver moving' });
    assert.equal(disabled.enabled, false);
    assert.ok(disabled.disabledAt instanceof Date);
    assert.equal(disabled.disabledReason, 'receiver moving');
    assert.deepEqual(await emit(deps(), 'a.b', {}, { owner: 'dis' }), []);
    const again = await disableEndpoint(deps(), OPERATOR, endpoint.id);
    assert.deepEqual(again.disabledAt, disabled.disabledAt, 'disabling twice keeps the first time');
    const enabled = await enableEndpoint(deps(), OPERATOR, endpoint.id);
    assert.equal(enabled.enabled, true);
    assert.equal(enabled.disabledAt, null);
    assert.equal(enabled.disabledReason, null);
    assert.equal((await emit(deps(), 'a.b', {}, { owner: 'dis' })).length, 1);
  });

  it('disable without a reason says an operator did it', async () => {
    const endpoint = await registerEndpoint(deps(), OPERATOR, { url: 'https://127.0.0.1/d2', events: ['*'] });
    assert.equal((await disableEndpoint(deps(), OPERATOR, endpoint.id)).disabledReason, 'disabled by an operator');
  });

  it("a disabledReason is kept or refused, never dropped: it changes a disabled endpoint's reason, and needs enabled: false otherwise", async () => {
    const endpoint = await registerEndpoint(deps(), OPERATOR, { url: 'https://127.0.0.1/d3', events: ['*'] });
    for (const patch of [{ disabledReason: 'maintenance' }, { enabled: true, disabledReason: 'maintenance' }]) {
      await assert.rejects(
        updateEndpoint(deps(), OPERATOR, endpoint.id, patch),
        appError('APP_WEBHOOK_PATCH_INVALID', 422),
        JSON.stringify(patch),
      );
    }
    const unchanged = await updateEndpoint(deps(), OPERATOR, endpoint.id, { description: 'still enabled' });
    assert.equal(unchanged.enabled, true);
    assert.equal(unchanged.disabledReason, null);

    await updateEndpoint(deps(), OPERATOR, endpoint.id, { enabled: false, disabledReason: 'maintenance' });
    const renamed = await updateEndpoint(deps(), OPERATOR, endpoint.id, { disabledReason: 'receiver moving' });
    assert.equal(renamed.enabled, false);
    assert.equal(renamed.disabledReason, 'receiver moving');
    const kept = await updateEndpoint(deps(), OPERATOR, endpoint.id, { description: 'disabled still' });
    assert.equal(kept.disabledReason, 'receiver moving');
  });
});

describe('remove', () => {
  it('deletes the endpoint with its gate and deliveries', async () => {
    const endpoint = await registerEndpoint(deps(), OPERATOR, {
      url: 'https://127.0.0.1/r',
      events: ['*'],
      owner: 'rm',
    });
    await emit(deps(), 'a.b', {}, { owner: 'rm' });
    assert.deepEqual(await removeEndpoint(deps(), OPERATOR, endpoint.id), { id: endpoint.id, removed: true });
    const [row] = await db.sql<{ endpoints: number; gates: number; deliveries: number }[]>`
      select (select count(*) from app_webhooks where id = ${endpoint.id})::int as endpoints,
             (select count(*) from app_endpoint_gate where endpoint_id = ${endpoint.id})::int as gates,
             (select count(*) from app_webhook_deliveries where endpoint_id = ${endpoint.id})::int as deliveries`;
    assert.deepEqual({ ...row }, { endpoints: 0, gates: 0, deliveries: 0 });
    await assert.rejects(removeEndpoint(deps(), OPERATOR, endpoint.id), appError('APP_WEBHOOK_NOT_FOUND', 404));
  });
});

describe('update as of a known state (ifUpdatedAt)', () => {
  it('applies the change while the endpoint is as it was, and refuses with 409 once someone changed it since, writing nothing', async () => {
    const endpoint = await registerEndpoint(deps(), OPERATOR, {
      url: 'https://public.example.com/known',
      events: ['*'],
      description: 'first',
    });
    const changed = await updateEndpoint(
      deps(),
      OPERATOR,
      endpoint.id,
      { description: 'second' },
      { ifUpdatedAt: endpoint.updatedAt },
    );
    assert.equal(changed.description, 'second');
    // a form opened before that change sends every field as it showed them
    await assert.rejects(
      updateEndpoint(
        deps(),
        OPERATOR,
        endpoint.id,
        { url: 'https://public.example.com/known', description: 'first, edited' },
        { ifUpdatedAt: endpoint.updatedAt },
      ),
      appError('APP_WEBHOOK_CONFLICT', 409, (error) => {
        assert.deepEqual(error.data, { id: endpoint.id, updatedAt: changed.updatedAt.toISOString() });
        assert.match(error.message, /was changed by someone else at .*: nothing was saved/);
      }),
    );
    const [row] = await db.sql<
      { description: string }[]
    >`select description from app_webhooks where id = ${endpoint.id}`;
    assert.equal(row?.description, 'second', 'the change made since stays');
  });
});
