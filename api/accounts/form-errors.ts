/**
 * A refused account request: JSON clients get the problem+json answer (rethrown to the error
 * handler); browsers get the form again with the reason and the same status, so nothing they
 * typed but the password is lost (the console's forms do the same: api/console/context.ts).
 */
import type { Context } from 'koa';
import { orShowAgain } from '../console/pages/negotiate.ts';
import { answerPage, type PageAnswer, type PageContext } from './page.ts';

export function orShowForm(
  ctx: Context,
  pages: PageContext,
  form: Omit<PageAnswer, 'status' | 'errors'>,
  action: () => Promise<void>,
): Promise<void> {
  return orShowAgain(ctx, action, (errors, status) => answerPage(ctx, pages, { ...form, status, errors }));
}
