import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../shared/errors/app-error.ts';
import { createSecretBox, secretBoxOf } from '../../../shared/webhooks/secret-box.ts';
import { generateSecret } from '../../../shared/webhooks/signing.ts';

const APP_SECRET = 'a long application secret used only by these tests';

const unreadableFor = (endpointId: string) => (error: unknown) => {
  assert.ok(error instanceof AppError);
  assert.equal(error.status, 500);
  assert.equal(error.code, 'APP_WEBHOOK_SECRET_UNREADABLE');
  assert.equal(error.expose, true);
  assert.deepEqual(error.data, { endpoint: endpointId });
  assert.match(error.message, new RegExp(`endpoint ${endpointId}\\b`));
  assert.ok(error.message.includes(`app webhooks:rotate ${endpointId}`), error.message);
  assert.match(error.message, /give the new secret to the receiver/);
  return true;
};

/** Changes one character of the base64url part at `index` of a sealed value. */
function tamper(sealed: string, index: number): string {
  const parts = sealed.split(':');
  const part = parts[index];
  parts[index] = (part[0] === 'A' ? 'B' : 'A') + part.slice(1);
  return parts.join(':');
}

describe('createSecretBox with an application secret', () => {
  const box = createSecretBox(APP_SECRET);

  it('reports that it encrypts', () => {
    assert.equal(box.encrypted, true);
  });

  it('opens what it sealed (round trip)', () => {
    const secret = generateSecret();
    assert.equal(box.open(box.seal(secret), 'ep_1'), secret);
  });

  it('opens what another box built from the same application secret sealed', () => {
    const secret = generateSecret();
    assert.equal(createSecretBox(APP_SECRET).open(box.seal(secret)), secret);
  });

  it('seals as enc:v1:<8 hex keyId>:<iv>:<tag>:<ciphertext> with a 12-byte IV and 16-byte tag', () => {
    const parts = box.seal(generateSecret()).split(':');
    assert.equal(parts.length, 6);
    assert.deepEqual(parts.slice(0, 2), ['enc', 'v1']);
    assert.match(parts[2], /^[0-9a-f]{8}$/);
    assert.equal(Buffer.from(parts[3], 'base64url').length, 12);
    assert.equal(Buffer.from(parts[4], 'base64url').length, 16);
    for (const part of parts.slice(3)) assert.match(part, /^[A-Za-z0-9_-]+$/);
  });

  it('gives two different sealed values for the same secret (fresh IV)', () => {
    const secret = generateSecret();
    const [a, b] = [box.seal(secret), box.seal(secret)];
    assert.notEqual(a, b);
    assert.notEqual(a.split(':')[3], b.split(':')[3]);
  });

  it('keeps the same keyId for every seal under one application secret', () => {
    assert.equal(box.seal('x').split(':')[2], box.seal('y').split(':')[2]);
  });

  it('stores neither the plaintext nor its base64 key part', () => {
    const secret = generateSecret();
    const sealed = box.seal(secret);
    const keyPart = secret.slice('whsec_'.length);
    assert.ok(!sealed.includes(secret));
    assert.ok(!sealed.includes(keyPart));
    assert.ok(!sealed.includes(keyPart.slice(0, 12)));
    assert.ok(!sealed.includes(Buffer.from(keyPart, 'base64').toString('base64url').slice(0, 12)));
  });

  it('refuses a value sealed under a different application secret with APP_WEBHOOK_SECRET_UNREADABLE naming the endpoint', () => {
    const sealed = createSecretBox('the previous application secret').seal(generateSecret());
    assert.throws(() => box.open(sealed, 'ep_42'), unreadableFor('ep_42'));
  });

  for (const [label, index] of [
    ['ciphertext', 5],
    ['authentication tag', 4],
    ['IV', 3],
  ] as const) {
    it(`refuses a tampered ${label} with APP_WEBHOOK_SECRET_UNREADABLE`, () => {
      const sealed = box.seal(generateSecret());
      assert.throws(() => box.open(tamper(sealed, index), 'ep_7'), unreadableFor('ep_7'));
    });
  }

  it('refuses a sealed value relabelled with another keyId', () => {
    const sealed = box.seal(generateSecret()).split(':');
    sealed[2] = '00000000';
    assert.throws(() => box.open(sealed.join(':'), 'ep_8'), unreadableFor('ep_8'));
  });

  it('refuses a truncated sealed value', () => {
    const sealed = box.seal(generateSecret());
    assert.throws(() => box.open(sealed.split(':').slice(0, 5).join(':'), 'ep_9'), unreadableFor('ep_9'));
  });

  it('refuses a value in no known format', () => {
    assert.throws(() => box.open(generateSecret(), 'ep_10'), unreadableFor('ep_10'));
  });

  it('still opens a plain: value stored before encryption was enabled', () => {
    const secret = generateSecret();
    assert.equal(box.open(`plain:${secret}`, 'ep_1'), secret);
  });

  it('sets data.endpoint to null when no endpoint id is given', () => {
    const sealed = createSecretBox('other').seal('x');
    assert.throws(
      () => box.open(sealed),
      (error: unknown) => error instanceof AppError && error.data?.endpoint === null,
    );
  });
});

describe('createSecretBox without an application secret', () => {
  for (const appSecret of [undefined, '']) {
    it(`stores secrets as plain:<secret> when the application secret is ${JSON.stringify(appSecret)}`, () => {
      const box = createSecretBox(appSecret);
      const secret = generateSecret();
      assert.equal(box.encrypted, false);
      assert.equal(box.seal(secret), `plain:${secret}`);
      assert.equal(box.open(box.seal(secret)), secret);
    });
  }

  it('refuses an enc: value with APP_WEBHOOK_SECRET_UNREADABLE naming the endpoint', () => {
    const sealed = createSecretBox(APP_SECRET).seal(generateSecret());
    assert.throws(() => createSecretBox(undefined).open(sealed, 'ep_3'), unreadableFor('ep_3'));
  });
});

describe('createSecretBox with previous application secrets (rotating APP_SECRET)', () => {
  const OLD = 'the application secret before the rotation, 40 chars';
  const NEW = 'the application secret after the rotation, long enough';
  const keyIdOf = (sealed: string) => sealed.split(':')[2];
  const rotated = createSecretBox(NEW, { previous: [OLD] });

  it('opens a value sealed under a previous secret', () => {
    const secret = generateSecret();
    assert.equal(rotated.open(createSecretBox(OLD).seal(secret), 'ep_1'), secret);
  });

  it('opens a value sealed under any of several previous secrets, and under the current one', () => {
    const older = 'the application secret two rotations ago, 40 chars';
    const box = createSecretBox(NEW, { previous: [older, OLD] });
    for (const sealer of [createSecretBox(older), createSecretBox(OLD), createSecretBox(NEW)]) {
      assert.equal(box.open(sealer.seal('a value')), 'a value');
    }
  });

  it('seals under the current secret only: its keyId is the current one', () => {
    const sealed = rotated.seal(generateSecret());
    assert.equal(keyIdOf(sealed), keyIdOf(createSecretBox(NEW).seal('x')));
    assert.notEqual(keyIdOf(sealed), keyIdOf(createSecretBox(OLD).seal('x')));
    assert.equal(rotated.sealedHere(sealed), true);
    assert.throws(() => createSecretBox(OLD).open(sealed), { code: 'APP_WEBHOOK_SECRET_UNREADABLE' });
  });

  it('refuses a value sealed under a secret that is neither current nor previous with APP_WEBHOOK_SECRET_UNREADABLE', () => {
    const sealed = createSecretBox('some other application secret, never configured').seal(generateSecret());
    assert.throws(() => rotated.open(sealed, 'ep_5'), unreadableFor('ep_5'));
  });

  it('tells a value under a previous secret (to re-seal) from one under the current secret or in clear', () => {
    assert.equal(rotated.sealedUnderPrevious(createSecretBox(OLD).seal('x')), true);
    assert.equal(rotated.sealedUnderPrevious(rotated.seal('x')), false);
    assert.equal(rotated.sealedUnderPrevious('plain:x'), false);
    assert.equal(rotated.sealedUnderPrevious(createSecretBox('never configured').seal('x')), false);
    assert.equal(createSecretBox(NEW).sealedUnderPrevious(createSecretBox(OLD).seal('x')), false);
  });

  it('keeps a key of its own for each purpose: a previous secret opens only its own purpose', () => {
    const headersBefore = createSecretBox(OLD, { purpose: 'endpoint-headers' });
    const headersAfter = createSecretBox(NEW, { purpose: 'endpoint-headers', previous: [OLD] });
    const sealed = headersBefore.seal('Bearer k1');
    assert.equal(headersAfter.open(sealed), 'Bearer k1');
    assert.throws(() => rotated.open(sealed, 'ep_6'), unreadableFor('ep_6'));
    assert.notEqual(keyIdOf(headersAfter.seal('x')), keyIdOf(rotated.seal('x')));
  });

  it('without a current secret, stores plain: and still opens what a previous secret sealed', () => {
    const box = createSecretBox(undefined, { previous: [OLD] });
    assert.equal(box.encrypted, false);
    assert.equal(box.seal('x'), 'plain:x');
    assert.equal(box.open(createSecretBox(OLD).seal('x')), 'x');
  });
});

describe('secretBoxOf (the boxes of a configuration)', () => {
  const OLD = 'the application secret before the rotation, 40 chars';
  const config = { secret: 'the application secret after the rotation, long enough', previousSecrets: [OLD] };

  it('makes one box per configuration and purpose, its keys derived once, and opens with previousSecrets', () => {
    const box = secretBoxOf(config);
    assert.equal(secretBoxOf(config), box, 'the same box again');
    assert.notEqual(secretBoxOf(config, 'endpoint-headers'), box, 'another purpose, another box');
    assert.equal(box.open(createSecretBox(OLD).seal('x')), 'x');
    assert.equal(
      secretBoxOf(config, 'endpoint-headers').open(createSecretBox(OLD, { purpose: 'endpoint-headers' }).seal('y')),
      'y',
    );
  });
});
