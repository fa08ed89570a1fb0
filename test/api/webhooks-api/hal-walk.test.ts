/**
 * "Every link a principal is given works for it": a HAL client (ketting) walks the webhook API
 * from its three collections as an admin, a member and a viewer, following every GET link of
 * every answer (embedded items included), then uses every other link with its method. Any
 * answer that is not 2xx fails the walk.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from 'ketting';
import { call, closeAll, createEndpoint, startApi } from './helpers.ts';

const app = await startApi();
const URL = 'http://127.0.0.1:9/hook';

interface FoundLink {
  rel: string;
  href: string;
  method: string;
}

/** Every link object of a HAL document, top level and embedded items. */
function linksOf(document: unknown, found: FoundLink[] = []): FoundLink[] {
  if (typeof document !== 'object' || document === null) return found;
  const { _links: links, _embedded: embedded } = document as {
    _links?: Record<string, unknown>;
    _embedded?: Record<string, unknown[]>;
  };
  for (const [rel, value] of Object.entries(links ?? {})) {
    for (const link of Array.isArray(value) ? value : [value]) {
      const { href, method } = link as { href: string; method?: string };
      found.push({ rel, href, method: method ?? 'GET' });
    }
  }
  for (const items of Object.values(embedded ?? {})) for (const item of items) linksOf(item, found);
  return found;
}

/** Bodies the walk sends to each action. */
const BODIES: Record<string, (href: string) => unknown> = {
  create: (href) =>
    href.endsWith('/events') ? { type: 'walk.created', data: { walked: true } } : { url: URL, events: ['walk.*'] },
  update: () => ({ description: 'walked' }),
  rotate: () => ({ grace: 1000 }),
  test: () => ({ data: { walked: true } }),
  recover: () => ({ since: '2020-01-01T00:00:00Z' }),
  retry: () => ({}),
};

/** Walks as `token`: answers the rels followed (GET) and used (other methods). */
async function walk(token: string): Promise<{ followed: Set<string>; used: Set<string>; requests: number }> {
  const client = new Client(app.base);
  const bodies = new Map<string, unknown>();
  let requests = 0;
  client.use(async (request, next) => {
    request.headers.set('Authorization', `Bearer ${token}`);
    const response = await next(request);
    requests += 1;
    assert.ok(
      response.ok,
      `${request.method} ${request.url} answered ${response.status}: ${await response.clone().text()}`,
    );
    const url = new globalThis.URL(request.url);
    if (response.headers.get('content-type')?.includes('json'))
      bodies.set(`${request.method} ${url.pathname}${url.search}`, await response.clone().json());
    return response;
  });
  const followed = new Set<string>();
  const used = new Set<string>();
  const queue = ['/api/v1/webhooks', '/api/v1/events', '/api/v1/deliveries'];
  const seen = new Set(queue);
  const actions: FoundLink[] = [];
  const actionKeys = new Set<string>();
  while (queue.length > 0) {
    const href = queue.shift() as string;
    await client.go(href).refresh();
    for (const link of linksOf(bodies.get(`GET ${href}`))) {
      if (link.method === 'GET') {
        followed.add(link.rel);
        if (!seen.has(link.href)) {
          seen.add(link.href);
          queue.push(link.href);
        }
      } else if (!actionKeys.has(`${link.method} ${link.href}`)) {
        actionKeys.add(`${link.method} ${link.href}`);
        actions.push(link);
      }
    }
  }
  // Each link is used in the state it was given for: retry before recover queues the same dead
  // deliveries again, destroy last so the other actions find their endpoints.
  const order = (link: FoundLink) => (link.rel === 'retry' ? 0 : link.method === 'DELETE' ? 2 : 1);
  actions.sort((a, b) => order(a) - order(b));
  for (const link of actions) {
    const resource = client.go(link.href);
    const data = BODIES[link.rel]?.(link.href) ?? {};
    if (link.method === 'POST') await resource.post({ data });
    else if (link.method === 'PATCH') await resource.patch({ data });
    else if (link.method === 'DELETE') await resource.delete();
    else assert.fail(`unexpected method ${link.method} on ${link.rel}`);
    used.add(link.rel);
    // The links of the action's own answer work too (the emit answer's `delivery` links, …).
    for (const next of linksOf(bodies.get(`${link.method} ${link.href}`))) {
      if (next.method !== 'GET') continue;
      followed.add(next.rel);
      await client.go(next.href).refresh();
    }
  }
  return { followed, used, requests };
}

describe('a HAL client follows every link of every answer, for each principal', () => {
  after(closeAll);
  let admin: string;
  let member: string;
  let viewer: string;

  before(async () => {
    admin = await app.token('admin');
    member = await app.token('member', 'walk');
    viewer = await app.token('viewer', 'walk');
    const other = await app.token('member', 'elsewhere');
    for (const token of [member, member, other]) await createEndpoint(app, token, { url: URL });
    for (const token of [member, other])
      await call('POST', `${app.api}/events`, { token, body: { type: 'walk.started', data: { n: 1 } } });
    // One dead delivery per tenant, so retry links are offered.
    await app.db.sql`
      update app_webhook_deliveries set status = 'dead', completed_at = now(), last_error = 'receiver answered 500'
       where id in (select distinct on (owner) id from app_webhook_deliveries order by owner, id)`;
  });

  it('a viewer: every link answers 2xx and none of them changes anything', async () => {
    const { followed, used, requests } = await walk(viewer);
    assert.deepEqual([...used], [], 'a viewer is offered no create, update, destroy or action');
    for (const rel of ['self', 'collection', 'first', 'last', 'deliveries', 'endpoint', 'event'])
      assert.ok(followed.has(rel), `followed ${rel}`);
    assert.ok(requests > 10, String(requests));
  });

  it('a member: every link answers 2xx, actions and destroy included', async () => {
    const { followed, used } = await walk(member);
    for (const rel of ['create', 'update', 'destroy', 'rotate', 'test', 'recover', 'retry'])
      assert.ok(used.has(rel), `used ${rel}; used: ${[...used]}`);
    for (const rel of ['self', 'collection', 'deliveries', 'endpoint', 'event', 'delivery'])
      assert.ok(followed.has(rel), `followed ${rel}`);
    const owners = await app.db.sql<
      { owner: string }[]
    >`select distinct owner from app_events where type like 'walk.%' and payload ? 'walked'`;
    assert.deepEqual(
      owners.map((row) => row.owner),
      ['walk'],
      'everything the member did stayed in its tenant',
    );
  });

  it('an admin: every link of every tenant answers 2xx', async () => {
    const { used } = await walk(admin);
    for (const rel of ['create', 'update', 'destroy', 'rotate', 'test', 'retry'])
      assert.ok(used.has(rel), `used ${rel}; used: ${[...used]}`);
  });
});
