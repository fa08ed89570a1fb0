/**
 * Identifiers the service makes for webhook records: `ep_` endpoints, `evt_` events, `msg_`
 * deliveries. Event and delivery ids are time-sortable (ULID layout: 48 bits of milliseconds then
 * 80 random bits, Crockford base32), so a listing ordered by id is ordered by creation time. None
 * contains a `.`, which matters because the delivery id is the `webhook-id` and the signed content
 * is `<id>.<timestamp>.<body>`.
 */
import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Crockford base32 of the low `length * 5` bits of `bytes[offset, offset + count)`, most
 * significant first (with `count * 8 >= length * 5`; extra high bits are dropped).
 */
function base32(bytes: Uint8Array, offset: number, count: number, length: number): string {
  let text = '';
  let bits = 0;
  let value = 0;
  for (let i = offset + count - 1; i >= offset && text.length < length; i--) {
    value |= bytes[i] << bits;
    bits += 8;
    while (bits >= 5 && text.length < length) {
      text = CROCKFORD[value & 31] + text;
      value >>>= 5;
      bits -= 5;
    }
  }
  while (text.length < length) {
    text = CROCKFORD[value & 31] + text;
    value >>>= 5;
  }
  return text;
}

function timePart(time: number): string {
  if (!Number.isSafeInteger(time) || time < 0 || time > 0xffffffffffff) throw new RangeError(`ulid: bad time ${time}`);
  const bytes = Buffer.alloc(7); // 56 bits hold the 50 the ten characters encode
  bytes.writeUIntBE(time, 1, 6);
  return base32(bytes, 0, 7, 10);
}

/** 26 characters: 10 of time (ms since the epoch), 16 of randomness (80 bits). */
export function ulid(time: number = Date.now()): string {
  return timePart(time) + base32(randomBytes(10), 0, 10, 16);
}

/** `count` ULIDs of one time, with one call for the random bytes (emit makes hundreds at once). */
export function ulids(count: number, time: number = Date.now()): string[] {
  const prefix = timePart(time);
  const random = randomBytes(10 * count);
  return Array.from({ length: count }, (_, i) => prefix + base32(random, 10 * i, 10, 16));
}

/** `ep_` + 128 random bits (26 Crockford base32 characters). */
export const newEndpointId = (): string => `ep_${base32(randomBytes(17), 0, 17, 26)}`;

/** `evt_` + a ULID of `time` (default now). */
export const newEventId = (time?: number): string => `evt_${ulid(time)}`;

/** `msg_` + a ULID of `time` (default now); the delivery's `webhook-id`. */
export const newDeliveryId = (time?: number): string => `msg_${ulid(time)}`;

/** `count` delivery ids of one time. */
export const newDeliveryIds = (count: number, time?: number): string[] => ulids(count, time).map((id) => `msg_${id}`);

/** Shape of an id of each kind, for input checks. */
export const ID_PATTERNS = {
  endpoint: /^ep_[0-9A-HJKMNP-TV-Z]{26}$/,
  event: /^evt_[0-9A-HJKMNP-TV-Z]{26}$/,
  delivery: /^msg_[0-9A-HJKMNP-TV-Z]{26}$/,
} as const;

/**
 * The creation time (ms since the epoch) a time-sortable id (`evt_…`, `msg_…`) carries in its
 * first ten ULID characters; undefined for an id without one. The worker measures the delay
 * from emit to first attempt with it, without reading the row's `created_at`.
 */
export function idTime(id: string): number | undefined {
  const match = /^(?:evt|msg)_([0-9A-HJKMNP-TV-Z]{10})[0-9A-HJKMNP-TV-Z]{16}$/.exec(id);
  if (!match) return undefined;
  let time = 0;
  for (const char of match[1]) time = time * 32 + CROCKFORD.indexOf(char);
  return time;
}

/**
 * Whether `id` can be an id of the service at all: 1 to 100 printable ASCII characters. Anything
 * else (NUL, control characters, other scripts) is answered as the record kind's "does not
 * exist" without asking the database, which could not store such text anyway (PostgreSQL 22021).
 */
export const isIdText = (id: unknown): id is string => typeof id === 'string' && /^[\x21-\x7e]{1,100}$/.test(id);
