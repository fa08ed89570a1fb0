import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Middleware } from 'koa';

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/**
 * Static files (the `static` slot of api/pipeline.ts): the files of `dir` (the
 * console's stylesheet and script, api/console/assets/) at `<prefix>/<name>`, from this origin only, so
 * the Content Security Policy stays `'self'` with no inline script or style. Read once, at the
 * first request; answered with a strong ETag (304 on `If-None-Match`) and an hour of caching.
 * Names not in the folder fall through (to the 404).
 */
export function staticAssets(options: { prefix: string; dir: string }): Middleware {
  let assets: Promise<Map<string, Asset>> | undefined;
  const load = async () => {
    const found = new Map<string, Asset>();
    for (const name of await readdir(options.dir)) {
      const type = TYPES[extname(name)];
      if (!type) continue;
      const body = await readFile(join(options.dir, name));
      found.set(`${options.prefix}/${name}`, {
        body,
        type,
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      });
    }
    return found;
  };
  return async function staticAssets(ctx, next) {
    if (!ctx.path.startsWith(`${options.prefix}/`) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    assets ??= load();
    const asset = (await assets).get(ctx.path);
    if (!asset) return next();
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('ETag', asset.etag);
    ctx.type = asset.type;
    if (ctx.get('If-None-Match') === asset.etag) {
      ctx.status = 304;
      return;
    }
    ctx.body = asset.body;
  };
}
