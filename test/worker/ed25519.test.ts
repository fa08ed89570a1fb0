/**
 * Ed25519 endpoints: deliveries carry Standard Webhooks' asymmetric `v1a,`
 * signatures, checked here with node:crypto against the `whpk_` public key the service showed,
 * one entry per active key during a rotation's grace; the private key is never shown.
 */
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { revealEndpoint, rotateSecret } from '../../shared/webhooks/endpoints/index.ts';
import { verify as verifyDelivery } from '../../shared/webhooks/signing.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { deliveryRow, endpoint, harness, runOnce, send } from './helpers.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

const db = await createTestDatabase();
const h = harness(db);
const receivers: Receiver[] = [];
after(async () => {
  for (const receiver of receivers) await receiver.close();
});

/** node:crypto's own check of one `v1a,` entry with a `whpk_` key: the referee, not our verify. */
function checks(
  publicKey: string,
  entry: string,
  request: { headers: Record<string, unknown>; body: Buffer },
): boolean {
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  const content = Buffer.concat([
    Buffer.from(`${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.`),
    request.body,
  ]);
  return verify(null, content, key, Buffer.from(entry.slice('v1a,'.length), 'base64'));
}

describe('ed25519 signing', () => {
  it('an ed25519 endpoint shows a whpk_ public key and its deliveries carry a v1a, signature that node:crypto verifies', async () => {
    const receiver = await startReceiver((_req, res) => res.end('ok'));
    receivers.push(receiver);
    const made = await endpoint(h, `${receiver.origin}/hook`, { signing: 'ed25519' });
    assert.equal(made.signing, 'ed25519');
    assert.match(made.secret, /^whpk_[A-Za-z0-9+/]{43}=$/, 'the receiver is shown the public key');
    const [id] = await send(h, made);
    await runOnce(h);
    assert.equal((await deliveryRow(h, id))?.status, 'done');
    const request = receiver.requests[0];
    const entries = String(request.headers['webhook-signature']).split(' ');
    assert.equal(entries.length, 1);
    assert.match(entries[0], /^v1a,/);
    assert.ok(checks(made.secret, entries[0], request), 'node:crypto verifies the signature');
    assert.deepEqual(
      verifyDelivery({ body: request.body, headers: request.headers as Record<string, string>, secret: made.secret }),
      { ok: true },
    );
    const tampered = Buffer.from(request.body.toString().replace('1', '2'));
    assert.equal(
      checks(made.secret, entries[0], { ...request, body: tampered }),
      false,
      'another body does not verify',
    );
    const shown = await revealEndpoint({ config: h.config, sql: h.sql }, OPERATOR, made.id);
    assert.deepEqual(
      shown.secrets.map((entry) => entry.secret),
      [made.secret],
      'reveal shows the public key, never the private one',
    );
  });

  it('during a rotation grace both keys sign: two v1a, entries, each verifying with its own public key', async () => {
    const receiver = await startReceiver((_req, res) => res.end('ok'));
    receivers.push(receiver);
    const made = await endpoint(h, `${receiver.origin}/hook`, { signing: 'ed25519' });
    const rotated = await rotateSecret({ config: h.config, sql: h.sql, log: h.log }, OPERATOR, made.id, {
      grace: 3_600_000,
    });
    assert.match(rotated.secret, /^whpk_/);
    assert.notEqual(rotated.secret, made.secret);
    await send(h, made);
    await runOnce(h);
    const request = receiver.requests[0];
    const entries = String(request.headers['webhook-signature']).split(' ');
    assert.equal(entries.length, 2);
    assert.ok(entries.every((entry) => entry.startsWith('v1a,')));
    assert.ok(
      entries.some((entry) => checks(made.secret, entry, request)),
      'the old public key verifies one entry',
    );
    assert.ok(
      entries.some((entry) => checks(rotated.secret, entry, request)),
      'the new public key verifies the other',
    );
    assert.equal(
      entries.filter((entry) => checks(made.secret, entry, request) && checks(rotated.secret, entry, request)).length,
      0,
    );
  });

  it('an unknown signing value is refused with 422 APP_WEBHOOK_SIGNING_INVALID; the default stays hmac-sha256 with whsec_', async () => {
    await assert.rejects(
      endpoint(h, 'http://127.0.0.1:9/hook', { signing: 'rsa' as never }),
      (error: { status: number; code: string }) => error.status === 422 && error.code === 'APP_WEBHOOK_SIGNING_INVALID',
    );
    const plain = await endpoint(h, 'http://127.0.0.1:9/hook');
    assert.equal(plain.signing, 'hmac-sha256');
    assert.match(plain.secret, /^whsec_/);
  });
});
