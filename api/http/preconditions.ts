/**
 * `If-Match` on the writes of the webhook and token APIs, evaluated as HTTP asks (RFC 9110, section 13.1.1)
 * rather than ignored: a client that sends it expects its change to be refused when the record
 * changed since it read it, and a write done anyway would overwrite the other change unseen.
 * Every ETag this service sends is weak (it validates caches of GET answers, computed over the
 * answer's bytes), and `If-Match` compares strongly, so no tag satisfies it: 412
 * `APP_PRECONDITION_FAILED`, nothing done. `*` (the record exists) lets the write go on; the
 * action itself answers 404 for a record that does not exist.
 */
import type { Context } from 'koa';
import { AppError } from '../../shared/errors/app-error.ts';

/** Throws 412 `APP_PRECONDITION_FAILED` for an `If-Match` other than `*` on a write. */
export function assertIfMatch(ctx: Context): void {
  if (ctx.method === 'GET' || ctx.method === 'HEAD') return;
  const header = ctx.get('If-Match').trim();
  if (header === '' || header === '*') return;
  throw new AppError(
    412,
    'If-Match cannot be satisfied: this API sends weak ETags, which validate cached GET answers and never match If-Match; nothing was changed (send the write without If-Match, or with If-Match: *)',
    { code: 'APP_PRECONDITION_FAILED', expose: true, data: { header: 'If-Match', value: header } },
  );
}
