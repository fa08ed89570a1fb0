import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { Context, Middleware } from 'koa';
import { isAppError } from '../../shared/errors/app-error.ts';
import { sharedUnavailable } from '../../shared/stores/errors.ts';
import type { FailureLog, KeyValueStore } from '../../shared/stores/types.ts';
import { answerHeaders, isStream, replayBody, storeBody, type StoredAnswer } from './answer.ts';
import { inProgress, invalidKey, keyReused } from './errors.ts';
import { parseIdempotencyKey } from './key.ts';
import { begin, complete, release, type Begun, type Claim, type RecordsDeps } from './records.ts';
import { callerOf, fingerprint, scopeOf } from './request.ts';
import type { AnswerSeal } from './sealed-answer.ts';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface IdempotencyOptions {
  /** Where records live: the shared store's entries or a custom store (resolved at boot). */
  entries: () => KeyValueStore | Promise<KeyValueStore>;
  ttlMs: number;
  claimMs: number;
  logFailure: FailureLog;
  /** Seals stored answers at rest (api/idempotency/sealed-answer.ts). */
  seal?: AnswerSeal;
  /**
   * Writes a refusal the action threw (a 4xx AppError) as the request's answer, which is then
   * stored like any other (api/middleware/errors.ts `writeProblem`); absent: it stores nothing.
   */
  answerRefusal?: (ctx: Context, error: unknown) => void;
}

/** The request body as received, for the fingerprint. */
function bodyText(ctx: Context): string {
  const raw = (ctx.request as { rawBody?: unknown }).rawBody;
  if (typeof raw === 'string') return raw;
  const parsed = (ctx.request as { body?: unknown }).body;
  if (parsed !== undefined) return JSON.stringify(parsed);
  const length = ctx.get('Content-Length');
  return length || ctx.get('Transfer-Encoding') ? `unparsed ${ctx.get('Content-Type')} ${length}` : '';
}

function replay(ctx: Context, answer: StoredAnswer): void {
  ctx.body = replayBody(answer.body);
  ctx.status = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
  ctx.set('Idempotency-Replayed', 'true');
}

/**
 * Idempotency keys on a mutating route (route slot `idempotency`).
 * A request without `Idempotency-Key` runs as usual. With one, the first request for
 * (caller, key) runs and its answer is stored; the same request again gets that answer with
 * `Idempotency-Replayed: true`, or 409 while the first still runs; another request with the
 * key gets 422. Every answer below 500 is stored, a refusal the action throws (a 4xx) included;
 * a 5xx or a client that went away stores nothing, so a retry runs the request. When the store
 * does not answer the request is refused with 503, whatever `shared.onError` says.
 */
export function idempotency(options: IdempotencyOptions): Middleware {
  const { logFailure } = options;
  return async function idempotency(ctx, next) {
    const header = ctx.headers['idempotency-key'];
    if (header === undefined || !MUTATING.has(ctx.method)) return next();
    const checked = parseIdempotencyKey(Array.isArray(header) ? header.join(', ') : header);
    if (!checked.ok) throw invalidKey(checked.reason);

    let deps: RecordsDeps;
    let begun: Begun;
    try {
      deps = {
        entries: await options.entries(),
        ttlMs: options.ttlMs,
        claimMs: options.claimMs,
        ...(options.seal ? { seal: options.seal } : {}),
      };
      const scope = scopeOf(callerOf(ctx.state.principal, ctx.ip));
      begun = await begin(deps, {
        scope,
        key: checked.key,
        fingerprint: fingerprint({ method: ctx.method, url: ctx.url, body: bodyText(ctx) }),
      });
    } catch (error) {
      if (isAppError(error)) throw error; // a record that cannot be opened: the client's to know
      logFailure(error, 'idempotency record');
      throw sharedUnavailable('idempotency record', error);
    }
    if (begun.outcome === 'replay') return replay(ctx, begun.answer);
    if (begun.outcome === 'in-progress') throw inProgress();
    if (begun.outcome === 'reused') throw keyReused();

    const claim: Claim = begun.claim;
    const forget = () => release(deps, claim).catch((error: unknown) => logFailure(error, 'idempotency release'));
    let aborted = false;
    const onClose = () => {
      if (!ctx.res.writableFinished) aborted = true;
    };
    ctx.res.once('close', onClose);
    const before = { ...ctx.response.headers };
    try {
      await next();
      if (isStream(ctx.body)) {
        const type = ctx.response.get('Content-Type');
        ctx.body = await buffer(ctx.body as unknown as Readable);
        if (type) ctx.type = type;
      }
    } catch (error) {
      // the action's refusal is its answer, kept like any other; a failure (5xx) stores nothing
      if (!options.answerRefusal || !isAppError(error) || error.status >= 500) {
        await forget();
        throw error;
      }
      options.answerRefusal(ctx, error);
    } finally {
      ctx.res.off('close', onClose);
    }
    if (aborted || ctx.req.socket?.destroyed || ctx.state.signal?.aborted || ctx.status >= 500) {
      await forget();
      return;
    }
    const answer: StoredAnswer = {
      status: ctx.status,
      headers: answerHeaders(before, ctx.response.headers),
      body: storeBody(ctx.body),
    };
    // the action has run: its answer goes out even if it cannot be stored (the claim then expires)
    await complete(deps, claim, answer).catch((error: unknown) => logFailure(error, 'idempotency store'));
  };
}
