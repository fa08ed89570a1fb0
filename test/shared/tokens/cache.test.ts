/**
 * The web process's API token cache (shared/tokens/cache.ts): a looked-up token is trusted for
 * `ttlMs` on the cache's clock, dropped as soon as a change of it is announced (the trigger of
 * migrations/021), never kept while the cache cannot listen, and never kept when a drop
 * overtook its lookup. Clocks are the tests' own; announcements are awaited through
 * `onForget`, never slept for.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { connect } from '../../../shared/db/connect.ts';
import { createTokenCache, type TokenCache } from '../../../shared/tokens/cache.ts';
import { createToken, revokeToken, TOKEN_PREFIX } from '../../../shared/tokens/index.ts';
import { createTestDatabase } from '../../helpers/database.ts';

const db = await createTestDatabase();
const deps = { sql: db.sql, log: db.log };

/** A pool of the cache's own (another process, as far as PostgreSQL knows) that counts its token lookups; `listenFails` refuses LISTEN. */
function countingPool(options: { listenFails?: boolean; name?: string } = {}) {
  let statements = 0;
  const sql = connect(db.config, db.log, { max: 2, name: options.name ?? 'token-cache-test' });
  after(() => sql.end({ timeout: 5 }));
  const counted = new Proxy(sql, {
    apply(target, thisArg, args) {
      if (Array.isArray(args[0]) && 'raw' in args[0] && args[0].join('').includes('where digest =')) statements += 1;
      return Reflect.apply(target as unknown as (...a: unknown[]) => unknown, thisArg, args);
    },
    get(target, property, receiver) {
      if (property === 'listen' && options.listenFails) return () => Promise.reject(new Error('LISTEN refused (test)'));
      return Reflect.get(target, property, receiver);
    },
  });
  return { sql: counted, statements: () => statements };
}

/** A cache over a counting pool with a clock the test moves, listening before it is answered. */
async function listeningCache(options: { ttlMs?: number; name?: string; maxTokens?: number } = {}) {
  const pool = countingPool({ name: options.name });
  const clock = { now: 1_000_000 };
  const cache = createTokenCache(
    { sql: pool.sql, log: db.log },
    {
      ttlMs: options.ttlMs ?? 5_000,
      now: () => clock.now,
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    },
  );
  after(() => cache.close());
  assert.equal(await cache.listen(), true);
  return { cache, pool, clock };
}

/** Resolves when `cache` drops token `id` (or every token). */
const dropped = (cache: TokenCache, id: string) =>
  new Promise<void>((resolve) => {
    const off = cache.onForget((ids) => {
      if (ids === undefined || ids.includes(id)) {
        off();
        resolve();
      }
    });
  });

describe('API token cache', () => {
  it('answers a token it read within ttlMs without a statement, and reads it again at ttlMs', async () => {
    const { cache, pool, clock } = await listeningCache({ ttlMs: 5_000 });
    const created = await createToken(deps, { name: 'cached', role: 'admin' });
    const before = pool.statements();
    assert.equal((await cache.verify(created.token))?.id, created.id);
    assert.equal(pool.statements(), before + 1, 'read once');
    clock.now += 4_999;
    assert.equal((await cache.verify(created.token))?.id, created.id);
    assert.equal(pool.statements(), before + 1, 'within ttlMs: no statement');
    clock.now += 1;
    assert.equal((await cache.verify(created.token))?.id, created.id);
    assert.equal(pool.statements(), before + 2, 'at ttlMs: read again');
  });

  it('holds a token no longer used ttlMs at most: those read ttlMs ago go at the next lookup, not once maxTokens others push them out', async () => {
    const { cache, pool, clock } = await listeningCache({ ttlMs: 5_000 });
    const [a, b, c] = await Promise.all(
      ['held a', 'held b', 'held c'].map((name) => createToken(deps, { name, role: 'admin' })),
    );
    await cache.verify(a.token);
    clock.now += 1_000;
    await cache.verify(b.token);
    assert.equal(cache.size(), 2);
    clock.now += 4_000; // a read 5 s ago, b 4 s ago
    await cache.verify(c.token);
    assert.equal(cache.size(), 2, 'a, past its ttlMs, is dropped when c is kept; b and c are held');
    const before = pool.statements();
    await cache.verify(b.token);
    assert.equal(pool.statements(), before, 'b, within its ttlMs, is still answered from the cache');
    clock.now += 1_000; // b read 5 s ago, c 1 s ago
    await cache.verify(a.token);
    assert.equal(pool.statements(), before + 1, 'a is read again');
    assert.equal(cache.size(), 2, 'b is dropped in turn; c and a are held');
  });

  it('keeps at most maxTokens tokens, the least recently read going first', async () => {
    const { cache, pool } = await listeningCache({ maxTokens: 2 });
    const [a, b, c] = await Promise.all(
      ['most a', 'most b', 'most c'].map((name) => createToken(deps, { name, role: 'admin' })),
    );
    for (const created of [a, b, c]) await cache.verify(created.token);
    assert.equal(cache.size(), 2);
    const before = pool.statements();
    await cache.verify(c.token);
    assert.equal(pool.statements(), before, 'c, read last, is kept');
    await cache.verify(a.token);
    assert.equal(pool.statements(), before + 1, 'a, read first, was dropped: read again');
  });

  it('never keeps an unknown or malformed token: each is looked up (or refused by its shape) every time', async () => {
    const { cache, pool } = await listeningCache();
    const unknown = `${TOKEN_PREFIX}${'B'.repeat(43)}`;
    const before = pool.statements();
    assert.equal(await cache.verify(unknown), null);
    assert.equal(await cache.verify(unknown), null);
    assert.equal(pool.statements(), before + 2);
    assert.equal(await cache.verify('not a token'), null);
    assert.equal(pool.statements(), before + 2, 'refused by its shape, no statement');
  });

  it('drops a token when its revocation is announced, whoever revoked it, before its ttlMs and without the clock moving', async () => {
    const { cache } = await listeningCache();
    const created = await createToken(deps, { name: 'revoked elsewhere', role: 'admin' });
    assert.equal((await cache.verify(created.token))?.id, created.id);
    const gone = dropped(cache, created.id);
    await revokeToken(deps, created.id); // through another pool, as another process or the CLI would
    await gone;
    assert.equal(await cache.verify(created.token), null);
  });

  it('announces every change that matters (expiry, role, owner, name, deletion) and not a recorded use', async () => {
    const { cache } = await listeningCache();
    const seen: string[] = [];
    cache.onForget((ids) => seen.push(...(ids ?? ['(all)'])));
    const tokens = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) => createToken(deps, { name: `change ${i}`, role: 'member', owner: 'acme' })),
    );
    const [used, expires, role, owner, name, deleted] = tokens.map((token) => token.id);
    await db.sql`update app_api_tokens set last_used_at = now() where id = ${used}`;
    await db.sql`update app_api_tokens set expires_at = now() + interval '1 hour' where id = ${expires}`;
    await db.sql`update app_api_tokens set role = 'viewer' where id = ${role}`;
    await db.sql`update app_api_tokens set owner = 'globex' where id = ${owner}`;
    await db.sql`update app_api_tokens set name = 'renamed' where id = ${name}`;
    const last = dropped(cache, deleted);
    await db.sql`delete from app_api_tokens where id = ${deleted}`;
    await last; // notices arrive in commit order: every one before it has been seen
    assert.deepEqual(seen, [expires, role, owner, name, deleted]);
  });

  it('a notice lost: a token is trusted until ttlMs after it was read, then read again and refused', async () => {
    const { cache, clock } = await listeningCache({ ttlMs: 5_000 });
    const created = await createToken(deps, { name: 'notice lost', role: 'admin' });
    assert.equal((await cache.verify(created.token))?.id, created.id);
    // revoked with the trigger off: no notice, as when the listening connection broke unnoticed
    await db.sql.begin(async (tx) => {
      await tx`alter table app_api_tokens disable trigger app_api_tokens_changed`;
      await tx`update app_api_tokens set revoked_at = now() where id = ${created.id}`;
      await tx`alter table app_api_tokens enable trigger app_api_tokens_changed`;
    });
    clock.now += 4_999;
    assert.equal((await cache.verify(created.token))?.id, created.id, 'within the bound, the kept token');
    clock.now += 1;
    assert.equal(await cache.verify(created.token), null, 'at the bound, read again: revoked');
  });

  it('a listening connection the server ends listens again by itself: emptied at once, then hears every change', async () => {
    const { cache } = await listeningCache({ name: 'token-cache-relisten' });
    const kept = await createToken(deps, { name: 'kept across the break', role: 'admin' });
    assert.equal((await cache.verify(kept.token))?.id, kept.id);
    const emptied = new Promise<void>((resolve) => {
      const off = cache.onForget((ids) => {
        if (ids === undefined) {
          off();
          resolve();
        }
      });
    });
    // as a failover or a restart of the server ends the session
    const ended = await db.sql`
      select pg_terminate_backend(pid) as ended from pg_stat_activity
       where application_name = 'token-cache-relisten' and query ilike 'listen%'`;
    assert.equal(ended.length, 1, 'the listening session was found and ended');
    await emptied; // listening again: whatever was announced meanwhile may be lost, so nothing is kept
    const gone = dropped(cache, kept.id);
    await revokeToken(deps, kept.id);
    await gone; // a change announced after the break is heard
    assert.equal(await cache.verify(kept.token), null);
  });

  it("a token past its own expiry on the cache's clock is read again, whatever its age in the cache", async () => {
    const { cache, pool, clock } = await listeningCache({ ttlMs: 60_000 });
    const created = await createToken(deps, { name: 'expiring', role: 'admin', expiresInMs: 3_600_000 });
    clock.now = created.expiresAt!.getTime() - 1;
    assert.equal((await cache.verify(created.token))?.id, created.id);
    const before = pool.statements();
    clock.now += 1;
    await cache.verify(created.token);
    assert.equal(
      pool.statements(),
      before + 1,
      "expired on the cache's clock: looked up again (the database's clock decides)",
    );
  });

  it('does not keep a token whose lookup a drop overtook', async () => {
    const { cache, pool } = await listeningCache();
    const created = await createToken(deps, { name: 'overtaken', role: 'admin' });
    const pending = cache.verify(created.token);
    cache.forget([created.id]); // a notice arriving while the lookup is under way
    assert.equal((await pending)?.id, created.id, 'the request it served raced the change: answered');
    const before = pool.statements();
    await cache.verify(created.token);
    assert.equal(pool.statements(), before + 1, 'not kept: read again');
  });

  it('keeps nothing while it cannot listen (a change could go unannounced), and still answers', async () => {
    const pool = countingPool({ listenFails: true });
    const cache = createTokenCache({ sql: pool.sql, log: db.log });
    after(() => cache.close());
    assert.equal(await cache.listen(), false);
    const created = await createToken(deps, { name: 'unlistened', role: 'admin' });
    const before = pool.statements();
    assert.equal((await cache.verify(created.token))?.id, created.id);
    assert.equal((await cache.verify(created.token))?.id, created.id);
    assert.equal(pool.statements(), before + 2, 'read every time');
  });
});
