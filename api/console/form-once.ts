/**
 * A console form acts once, however often the browser sends it: a double click, a form sent
 * again after going back to its page, a POST the browser repeats after a network hiccup. Every
 * rendered form carries its own key in its CSRF token (`<salt>.<mac>.<form key>`,
 * api/console/pages/render.ts), which api/auth/csrf.ts leaves in `ctx.state.formKey`.
 *
 * The key rides in the CSRF token rather than in a field of its own: every form already sends
 * `_csrf` from `it.csrfToken`, so every form, those added later included, has a key with no
 * template to edit, and a token without one (the page object's token, a scripted client, a page
 * rendered before this existed) still passes the CSRF check and acts each time, as it always did.
 *
 * The records are the API's idempotency records (api/idempotency/records.ts: the same store,
 * states and sealing at rest), scoped by session and form path, so one key never meets another
 * session's or another form's. What a second submission with the same key gets:
 *
 * | First submission                    | Second submission (same session, path and key)                              |
 * |-------------------------------------|-----------------------------------------------------------------------------|
 * | answered a redirect (the 303)       | the same 303 (its one-time value cookie too: once.ts shows a value once)     |
 * | still running                       | waits for it up to `waitMs`, then its 303; past that 409 `APP_CONSOLE_FORM_IN_PROGRESS` |
 * | answered a page (refused, a preview)| runs again: nothing was stored (a refusal changed nothing; the form can be corrected) |
 * | failed or threw                     | runs again                                                                  |
 * | redirected, other fields sent       | 422 `APP_CONSOLE_FORM_ALREADY_SENT` (this form acted; open it again for new values) |
 *
 * Only redirects are stored: the console answers a form that acted with a 303, and a page
 * otherwise (a refusal shown with its form, a filter tried, secrets revealed), which is safe to
 * answer again and must not be kept. A redirect is stored even when the browser went away
 * before it came (a double click drops the first answer): the action has run. A redirect that
 * sets the session cookie (a sign-in) is not: it carries a live session's secret.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Context, Middleware } from 'koa';
import { AppError, isAppError } from '../../shared/errors/app-error.ts';
import { sharedUnavailable } from '../../shared/stores/errors.ts';
import type { FailureLog, KeyValueStore } from '../../shared/stores/types.ts';
import { replayBody, storeBody, type StoredAnswer } from '../idempotency/answer.ts';
import { begin, complete, release, type Begun, type RecordsDeps } from '../idempotency/records.ts';
import { fingerprint } from '../idempotency/request.ts';
import type { AnswerSeal } from '../idempotency/sealed-answer.ts';
import { sessionOf } from '../auth/session-strategy.ts';

export interface FormOnceOptions {
  entries: KeyValueStore;
  /** How long a submission's redirect is answered again. */
  ttlMs: number;
  /** How long a claim holds without an answer (a process that died mid-request frees its key after it). */
  claimMs: number;
  /** How long a second submission waits for a first one still running before it is told so. */
  waitMs: number;
  seal?: AnswerSeal;
  logFailure: FailureLog;
  /** The session cookie's name: an answer that sets it (a portal sign-in) is never stored. */
  sessionCookie?: string;
}

/** 409 with `Retry-After: 1`: the first submission of this form is still running. */
export const formInProgress = () =>
  new AppError(
    409,
    'This form was sent a moment ago and is still being processed; it acts once. Reload this page in a moment to see its result: the browser asks to send the form again, which is safe.',
    { code: 'APP_CONSOLE_FORM_IN_PROGRESS', headers: { 'Retry-After': '1' } },
  );

/** 422: this rendered form already acted, and now holds other values. */
export const formAlreadySent = () =>
  new AppError(
    422,
    'This form was already sent, with other values, and it acts once. To send these values, open the form again and send it from there.',
    { code: 'APP_CONSOLE_FORM_ALREADY_SENT' },
  );

/** The `Set-Cookie` lines the action added (those set before it, a session's, are not its answer). */
function addedCookies(before: unknown, after: unknown): string[] {
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : value ? [String(value)] : []);
  const earlier = new Set(list(before));
  return list(after).filter((line) => !earlier.has(line));
}

/** Whether the action set cookie `name`. */
const setsCookie = (before: unknown, after: unknown, name: string) =>
  addedCookies(before, after).some((line) => line.startsWith(`${name}=`));

/** A redirect as stored: its status, `Location`, the cookies the action set (a one-time value's) and its short body. */
function redirectAnswer(ctx: Context, cookiesBefore: unknown): StoredAnswer {
  const cookies = addedCookies(cookiesBefore, ctx.response.headers['set-cookie']);
  return {
    status: ctx.status,
    headers: { location: ctx.response.get('Location'), ...(cookies.length > 0 ? { 'set-cookie': cookies } : {}) },
    body: storeBody(ctx.body),
  };
}

function replay(ctx: Context, answer: StoredAnswer): void {
  ctx.body = replayBody(answer.body);
  ctx.status = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) {
    // appended: the cookies this request set already (a renewed session) stay
    if (name === 'set-cookie') for (const line of [value].flat()) ctx.append('Set-Cookie', line);
    else ctx.set(name, value);
  }
  ctx.set('Idempotency-Replayed', 'true');
}

/**
 * The console's forms act once per form key (see the file's comment); `options` is read at the
 * first request (the router is built before the shared store starts).
 */
export function formOnce(options: () => FormOnceOptions): Middleware {
  return async function formOnce(ctx, next) {
    const key = ctx.state.formKey;
    const session = sessionOf(ctx.state.principal);
    if (ctx.method !== 'POST' || !key || !session) return next();
    const settings = options();
    const deps: RecordsDeps = {
      entries: settings.entries,
      ttlMs: settings.ttlMs,
      claimMs: settings.claimMs,
      ...(settings.seal ? { seal: settings.seal } : {}),
    };
    const path = ctx.path.length > 1 ? ctx.path.replace(/\/+$/, '') : ctx.path;
    const request = {
      scope: `console-form:${session.id}:${path}`,
      key,
      // the fields as parsed, `_csrf` taken out: a form sent again may carry a new token with the same key
      fingerprint: fingerprint({ method: ctx.method, url: ctx.url, body: JSON.stringify(ctx.request.body ?? null) }),
    };
    const look = async (): Promise<Begun> => {
      try {
        return await begin(deps, request);
      } catch (error) {
        if (isAppError(error)) throw error; // a stored answer that cannot be opened: said as it is
        settings.logFailure(error, 'console form record');
        throw sharedUnavailable('console form record', error);
      }
    };

    let begun = await look();
    // a first submission still running (a double click): wait for its answer, with growing pauses
    const until = Date.now() + settings.waitMs;
    for (let pause = 25; begun.outcome === 'in-progress' && Date.now() < until; pause = Math.min(pause * 2, 400)) {
      await delay(Math.min(pause, until - Date.now()));
      if (ctx.state.signal?.aborted) throw formInProgress(); // this browser went away meanwhile
      begun = await look();
    }
    if (begun.outcome === 'replay') return replay(ctx, begun.answer);
    if (begun.outcome === 'in-progress') throw formInProgress();
    if (begun.outcome === 'reused') throw formAlreadySent();

    const claim = begun.claim;
    const forget = () =>
      release(deps, claim).catch((error: unknown) => settings.logFailure(error, 'console form release'));
    const cookiesBefore = ctx.response.headers['set-cookie'];
    try {
      await next();
    } catch (error) {
      await forget();
      throw error;
    }
    if (ctx.status < 300 || ctx.status >= 400 || !ctx.response.get('Location')) return forget();
    // a sign-in (a portal link opened by a signed-in browser) ended the session this record is
    // scoped by, so nobody could be answered it again; and it carries the new session's secret,
    // which is kept nowhere but in the browser (the table stores its digest)
    const { sessionCookie } = settings;
    if (sessionCookie && setsCookie(cookiesBefore, ctx.response.headers['set-cookie'], sessionCookie)) return forget();
    // the action has run: its answer goes out even if it cannot be stored (the claim then expires)
    await complete(deps, claim, redirectAnswer(ctx, cookiesBefore)).catch((error: unknown) =>
      settings.logFailure(error, 'console form store'),
    );
  };
}
