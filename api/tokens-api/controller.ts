/** `/api/v1/tokens` over shared/tokens/api-tokens.ts, which decides what the request's actor may do. */
import type { Context } from 'koa';
import {
  listTokensFor,
  mayMint,
  mintToken,
  revokeTokenFor,
  type TokenListingDeps,
} from '../../shared/tokens/api-tokens.ts';
import { deepestPage } from '../../shared/db/page-depth.ts';
import { actorOf } from '../../shared/access/actor.ts';
import { publicToken, type ApiToken } from '../../shared/tokens/tokens.ts';
import type { Links } from '../hal/links.ts';
import { assertIfMatch } from '../http/preconditions.ts';
import { defineController } from '../model-framework/routing/controller.ts';
import { permitOnly } from '../model-framework/routing/permit.ts';
import { acceptsQuery } from '../model-framework/routing/query-parameters.ts';
import { pagingLinks } from '../webhooks-api/links.ts';
import { TOKEN_PATHS } from './routes.ts';

/** A token as the API shows it: its public fields (shared/tokens/tokens.ts `publicToken`) with its links. */
export function publishToken(token: ApiToken & { token?: string }): object {
  const links: Links = { collection: { href: TOKEN_PATHS.tokens } };
  if (token.revokedAt === null) links.destroy = { href: TOKEN_PATHS.token(token.id), method: 'DELETE' };
  return { _links: links, ...publicToken(token) };
}

const actorFor = (ctx: Context) => actorOf(ctx.state.principal);

const NO_QUERY = { parameters: [], paged: false } as const;

export const tokensController = (deps: TokenListingDeps) =>
  defineController({
    /** GET ?page=&per_page=: the caller's tokens (admins: all); no other query parameter. */
    index: acceptsQuery({ parameters: [], paged: true }, async (ctx) => {
      const { page, perPage } = ctx.pagination();
      const actor = actorFor(ctx);
      const { records, total } = await listTokensFor(deps, actor, { page, perPage });
      // the listing refuses pages past the paging bound: no link points past the deepest page
      const deepest = deepestPage(perPage, deps.config.api.maxPageOffset);
      await ctx.collection(records.map(publishToken), {
        type: 'tokens',
        page,
        perPage,
        total,
        deepestPage: deepest,
        links: {
          ...pagingLinks(TOKEN_PATHS.tokens, {}, { page, perPage, total, deepest }, []),
          ...(mayMint(actor) ? { create: { href: TOKEN_PATHS.tokens, method: 'POST' } } : {}),
        },
      });
    }),
    /** POST {name, role?, owner?, expiresInMs?}: 201 with the token text, shown this once. */
    create: acceptsQuery(NO_QUERY, async (ctx) => {
      assertIfMatch(ctx);
      const created = await mintToken(
        deps,
        actorFor(ctx),
        permitOnly(ctx.request.body, ['name', 'role', 'owner', 'expiresInMs']),
      );
      await ctx.resource(publishToken(created), { status: 201 });
    }),
    destroy: acceptsQuery(NO_QUERY, async (ctx) => {
      assertIfMatch(ctx);
      await ctx.resource(
        publishToken(
          await revokeTokenFor(
            deps,
            actorFor(ctx),
            (ctx as Context & { params: Record<string, string> }).params.externalId,
          ),
        ),
      );
    }),
  });
