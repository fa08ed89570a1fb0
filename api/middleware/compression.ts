import type { Middleware } from 'koa';
import compress from 'koa-compress';

/**
 * Compression of answers of 1 kB or more, in production only (its slot in api/pipeline.ts); in
 * development and test the bytes on the wire stay readable.
 */
export function compression(options: { production: boolean }): Middleware | undefined {
  if (!options.production) return undefined;
  const compressing = compress({ threshold: 1024 });
  return async function compression(ctx, next) {
    await compressing(ctx, next);
  };
}
