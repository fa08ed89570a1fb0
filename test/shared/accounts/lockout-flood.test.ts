/**
 * The sign-in lockout survives a flood of the `none` backend's bound: past
 * `shared.maxMemoryBytes`, entries holding a refusal (a lock, a failure count near the lock) give
 * way only after the entries that refuse nothing, so failed sign-ins against many other emails
 * neither lift a lock nor give a counted account its failures back (beyond its first).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import type { AccountDeps } from '../../../shared/accounts/deps.ts';
import { checkCredentials } from '../../../shared/accounts/sign-in.ts';
import { createUser } from '../../../shared/accounts/users.ts';
import { AppError } from '../../../shared/errors/app-error.ts';
import { memoryStore } from '../../../shared/stores/memory.ts';
import { createTestDatabase } from '../../helpers/database.ts';

const PASSWORD = 'correct horse battery staple';
const ATTEMPTS = 5;
/** About twenty lockout entries (a failure slot is counted as 155 bytes, a lock as 170). */
const MAX_BYTES = 3000;
/** Failed sign-ins against distinct emails: each claims one slot, past the bound ten times over. */
const FLOOD = 200;

const clock = Date.parse('2026-11-25T10:00:00Z');
let deps: AccountDeps;
let evictions = 0;
let held = 0;

before(async () => {
  const db = await createTestDatabase();
  const store = memoryStore({
    now: () => clock,
    logFailure: () => {},
    maxBytes: MAX_BYTES,
    watch: { evicted: () => (evictions += 1), bytes: (bytes) => (held = bytes) },
  });
  deps = {
    config: db.configWith({ auth: { lockout: { attempts: ATTEMPTS, window: '15m', duration: '15m' } } }),
    sql: db.sql,
    log: db.log,
    now: () => clock,
    lockouts: store.entries,
  };
});

/** The code a sign-in is refused with, or `signed in`. */
async function signIn(email: string, password: string): Promise<string> {
  try {
    await checkCredentials(deps, { email, password });
    return 'signed in';
  } catch (error) {
    if (error instanceof AppError) return String(error.code);
    throw error;
  }
}

/** One wrong password for each of `count` emails nobody has, a few at a time (each costs an argon2 verification). */
async function flood(prefix: string, count: number): Promise<void> {
  const before = evictions;
  for (let n = 0; n < count; n += 8) {
    const batch = Array.from({ length: Math.min(8, count - n) }, (_, i) => `${prefix}-${n + i}@flood.example`);
    const codes = await Promise.all(batch.map((email) => signIn(email, 'a guess')));
    assert.ok(codes.every((code) => code === 'APP_AUTH_FAILED'));
    assert.ok(held <= MAX_BYTES, `${held} bytes held`);
  }
  assert.ok(evictions - before > count - 30, `the flood evicted ${evictions - before} entries`);
}

describe('sign-in lockout under a flood of the memory bound', () => {
  it('a locked account stays locked, even with the right password, after a flood of failures against other emails', async () => {
    const user = await createUser(deps, OPERATOR, { email: 'locked@example.com', role: 'admin', password: PASSWORD });
    for (let attempt = 1; attempt < ATTEMPTS; attempt += 1)
      assert.equal(await signIn(user.email, `wrong ${attempt}`), 'APP_AUTH_FAILED');
    assert.equal(await signIn(user.email, 'wrong last'), 'APP_AUTH_LOCKED');
    await flood('lock', FLOOD);
    assert.equal(await signIn(user.email, PASSWORD), 'APP_AUTH_LOCKED', 'the lock outlived the flood');
  });

  it('an account one failure from its lock loses at most its first failure to a flood of single failures', async () => {
    const user = await createUser(deps, OPERATOR, { email: 'counted@example.com', role: 'admin', password: PASSWORD });
    for (let attempt = 1; attempt < ATTEMPTS; attempt += 1)
      assert.equal(await signIn(user.email, `wrong ${attempt}`), 'APP_AUTH_FAILED');
    await flood('count', FLOOD);
    assert.equal(
      await signIn(user.email, 'wrong again'),
      'APP_AUTH_FAILED',
      'its first failure, plain like the flood, went',
    );
    assert.equal(await signIn(user.email, 'wrong once more'), 'APP_AUTH_LOCKED', 'the later failures stayed counted');
    assert.equal(await signIn(user.email, PASSWORD), 'APP_AUTH_LOCKED');
  });
});
