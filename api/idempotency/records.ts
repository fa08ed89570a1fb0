/**
 * The idempotent request state machine (states and transitions of one key; docs/http-api.md "Idempotency keys"),
 * over any {@link KeyValueStore}. The store's atomic `add` is what makes one execution
 * per key certain: of many simultaneous requests with one key, in one process or many, exactly
 * one claims it; the others find the claim ("executing") or the stored answer.
 *
 * | State     | Trigger                                | Condition        | Next               | Answer                                        |
 * |-----------|----------------------------------------|------------------|--------------------|-----------------------------------------------|
 * | no record | first request with key                 |                  | executing → stored | the normal answer (stored `ttl`, 24 h)        |
 * | stored    | same key, same request                 | already answered | unchanged          | stored answer + `Idempotency-Replayed: true`  |
 * | executing | same key, same request                 | still in flight  | unchanged          | 409 `APP_API_IDEMPOTENCY_IN_PROGRESS`          |
 * | stored    | same key, other method, path or body   |                  | unchanged          | 422 `APP_API_IDEMPOTENCY_KEY_REUSED`           |
 * | executing | first answer is 5xx or request aborted |                  | no record          | (client may retry)                            |
 */
import { randomUUID } from 'node:crypto';
import { outsideRequest } from '../../shared/db/request-statements.ts';
import type { Json, KeyValueStore } from '../../shared/stores/types.ts';
import type { StoredAnswer } from './answer.ts';
import type { AnswerSeal } from './sealed-answer.ts';
import { recordKey } from './request.ts';

/** One key's entry. */
export type IdempotencyRecord =
  | { state: 'executing'; fingerprint: string; token: string }
  | { state: 'stored'; fingerprint: string; answer: StoredAnswer };

/** What to do with a request that carries a key. */
export type Outcome = 'execute' | 'replay' | 'in-progress' | 'reused';

/** The decision for a request finding `record` (the table above, as a function). */
export function decide(record: IdempotencyRecord | undefined, fingerprint: string): Outcome {
  if (!record) return 'execute';
  if (record.fingerprint !== fingerprint) return 'reused';
  return record.state === 'stored' ? 'replay' : 'in-progress';
}

export interface RecordsDeps {
  entries: KeyValueStore;
  /** Seals answers at rest and opens them (api/idempotency/sealed-answer.ts); as they are when absent. */
  seal?: AnswerSeal;
  /** How long an answer is replayed (`api.idempotency.ttl`, 24 h). */
  ttlMs: number;
  /**
   * How long a claim holds without an answer: past it, a process that died mid-request no
   * longer blocks its key. Longer than `config.requestTimeout`.
   */
  claimMs: number;
}

export interface Claim {
  id: string;
  token: string;
  fingerprint: string;
}

export type Begun =
  | { outcome: 'execute'; claim: Claim }
  | { outcome: 'replay'; answer: StoredAnswer }
  | { outcome: 'in-progress' }
  | { outcome: 'reused' };

/**
 * Claims (scope, key) for this request, or says what the existing record means. Rejects when the
 * store does not answer. A record that disappears between the claim attempt and the read (its
 * first request failed) is claimed again; after three such races the caller is told to retry.
 */
export async function begin(
  deps: RecordsDeps,
  request: { scope: string; key: string; fingerprint: string },
): Promise<Begun> {
  const id = recordKey(request.scope, request.key);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const token = randomUUID();
    const executing: IdempotencyRecord = { state: 'executing', fingerprint: request.fingerprint, token };
    if (await deps.entries.add(id, executing as unknown as Json, deps.claimMs)) {
      return { outcome: 'execute', claim: { id, token, fingerprint: request.fingerprint } };
    }
    const record = (await deps.entries.get(id)) as IdempotencyRecord | undefined;
    const outcome = decide(record, request.fingerprint);
    if (outcome === 'replay') {
      const stored = (record as Extract<IdempotencyRecord, { state: 'stored' }>).answer;
      return { outcome, answer: deps.seal ? deps.seal.open(stored as unknown as Json) : stored };
    }
    if (outcome !== 'execute') return { outcome };
  }
  return { outcome: 'in-progress' };
}

/** Stores the answer of a claimed request for `ttlMs`. */
export async function complete(deps: RecordsDeps, claim: Claim, answer: StoredAnswer): Promise<void> {
  const stored: IdempotencyRecord = {
    state: 'stored',
    fingerprint: claim.fingerprint,
    answer: (deps.seal ? deps.seal.seal(answer) : answer) as unknown as StoredAnswer,
  };
  await deps.entries.set(claim.id, stored as unknown as Json, deps.ttlMs);
}

/** Forgets a claim (5xx, abort, thrown error): nothing is stored and the client may retry. Leaves a newer claim alone. */
export function release(deps: RecordsDeps, claim: Claim): Promise<void> {
  // also after the request timed out, whose own statements are refused by then
  return outsideRequest(async () => {
    const record = (await deps.entries.get(claim.id)) as IdempotencyRecord | undefined;
    if (record?.state === 'executing' && record.token === claim.token) await deps.entries.delete(claim.id);
  });
}
