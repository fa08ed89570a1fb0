/**
 * A refused account request: JSON clients get the problem+json answer (rethrown to the error
 * handler); browsers get the form again with the reason and the same status, so nothing they
 * typed but the password is lost.
 */
import type { Context } from 'koa';
import { isAppError } from '../../shared/errors/app-error.ts';
import { answerPage, wantsJson, type PageAnswer, type PageContext } from './page.ts';

export async function orShowForm(ctx: Context, pages: PageContext, form: Omit<PageAnswer, 'status' | 'errors'>, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (wantsJson(ctx) || !isAppError(error) || error.status >= 500) throw error;
    if (error.headers) ctx.set(error.headers);
    answerPage(ctx, pages, { ...form, status: error.status, errors: [{ code: error.code, message: error.message }] });
  }
}
