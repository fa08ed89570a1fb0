import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ID_PATTERNS,
  newDeliveryId,
  newDeliveryIds,
  newEndpointId,
  newEventId,
  ulid,
} from '../../../shared/webhooks/ids.ts';

describe('ids', () => {
  it('endpoint ids are ep_ + 26 Crockford base32 characters, all different', () => {
    const ids = new Set(Array.from({ length: 1000 }, newEndpointId));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.match(id, ID_PATTERNS.endpoint);
  });

  it('event and delivery ids are evt_ / msg_ + a ULID and contain no dot (the webhook-id is part of the signed content)', () => {
    assert.match(newEventId(), ID_PATTERNS.event);
    assert.match(newDeliveryId(), ID_PATTERNS.delivery);
    for (const id of newDeliveryIds(100)) {
      assert.match(id, ID_PATTERNS.delivery);
      assert.ok(!id.includes('.'));
    }
  });

  it('ULIDs encode the time in their first ten characters, so they sort by time', () => {
    assert.equal(ulid(0).slice(0, 10), '0000000000');
    assert.equal(ulid(0xffffffffffff).slice(0, 10), '7ZZZZZZZZZ');
    assert.equal(ulid(1469918176385).slice(0, 10), '01ARYZ6S41', 'the example of the ULID specification');
    const times = [1, 1000, 1_700_000_000_000, 1_700_000_000_001, 2_000_000_000_000];
    const ids = times.map((time) => newDeliveryId(time));
    assert.deepEqual([...ids].sort(), ids);
  });

  it('a batch shares one time and has distinct random parts', () => {
    const batch = newDeliveryIds(500, 1_700_000_000_000);
    assert.equal(new Set(batch).size, 500);
    assert.equal(new Set(batch.map((id) => id.slice(0, 14))).size, 1);
  });

  it('refuses a time outside 48 bits', () => {
    assert.throws(() => ulid(-1), RangeError);
    assert.throws(() => ulid(2 ** 48), RangeError);
  });
});
