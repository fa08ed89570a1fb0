/**
 * Hostile values for the console's escaping tests: markup that would run if a page wrote it
 * unescaped, and a console whose every record a reader does not control holds it (what a hostile
 * receiver answered included: the real worker delivers to it until the delivery is dead).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { createEventType } from '../../../shared/webhooks/event-types/index.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { eventually } from '../../helpers/poll.ts';
import { Browser, startConsole } from './harness.ts';

/**
 * Quotes to leave an attribute, a textarea's end, a script and an image whose handler runs, each
 * setting `window.__hostile`. No space: it is a valid email's local part and tenant id too.
 */
export const HOSTILE = `"'></textarea><script>window.__hostile=1</script><img/src=x/onerror=window.__hostile=1>`;

/**
 * A console (the real worker beside it, loopback receivers allowed) holding {@link HOSTILE} in
 * every value others control: an event type's description, schema and examples; an endpoint's
 * URL, description, filter, header value and owner, whose receiver redirects to a hostile
 * Location, then answers a hostile body, so its delivery dies with both recorded; the event's
 * data; a token's name; a user's email and owner (`flags` added to the configuration). Answers the app, the ids, and an admin signed
 * in (its email and a cookie-keeping client with its CSRF token).
 */
export async function hostileConsole(flags: Record<string, unknown> = {}) {
  const app = await startConsole({ webhooks: { allowHttp: true, allowPrivate: true }, ...flags });
  let answered = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      answered += 1;
      if (answered % 2 === 1) response.writeHead(302, { location: `javascript:${HOSTILE}` }).end();
      else response.writeHead(500, { 'content-type': 'text/html' }).end(HOSTILE);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  /** Stops the receiver, the worker and the web process. */
  const close = async () => {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await app.close();
  };
  // a setup that fails part way stops what it started, so the test file ends with its failure
  const fill = async () => {
    const { port } = receiver.address() as AddressInfo;
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    await createEventType(deps, OPERATOR, {
      name: 'order.created',
      description: HOSTILE,
      schema: { type: 'object', title: HOSTILE },
      examples: [{ note: HOSTILE }],
    });
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: `http://127.0.0.1:${port}/hook?q=${encodeURIComponent(HOSTILE)}`,
      events: ['order.created'],
      description: HOSTILE,
      filter: { [`data.${HOSTILE}`]: { $ne: HOSTILE } },
      headers: { 'X-Hostile': HOSTILE },
      owner: HOSTILE,
    });
    await createToken(deps, { name: HOSTILE, role: 'member', owner: HOSTILE });
    // a user from before emails were held to one plain address (user-fields.ts): no user is made
    // with such an email now, but the console still shows the ones that have it
    await app.db.sql`
      insert into app_users (id, email, email_key, role, owner, created_at, updated_at)
      values ('usr_hostile', ${`${HOSTILE}@example.com`}, ${`${HOSTILE}@example.com`.toLowerCase()}, 'viewer', ${HOSTILE}, now(), now())`;
    const user = await app.user({ role: 'admin' });
    const admin = new Browser(app.base);
    const csrf = await admin.signIn(user.email);
    const emitted = await admin.request('POST', '/events', {
      form: { _csrf: csrf, type: 'order.created', data: JSON.stringify({ note: HOSTILE }), owner: HOSTILE },
    });
    if (emitted.status !== 303) throw new Error(`emit failed: ${emitted.status} ${emitted.text}`);
    const [dead] = await eventually(
      async () => {
        const rows = await app.db.sql<{ id: string; event_id: string }[]>`
          select id, event_id from app_webhook_deliveries where endpoint_id = ${endpoint.id} and status = 'dead'`;
        return rows.length ? rows : null;
      },
      15_000,
      'the delivery to the hostile receiver to be dead',
    );
    return {
      app,
      endpointId: endpoint.id,
      deliveryId: dead.id,
      eventId: dead.event_id,
      admin: { email: user.email, browser: admin, csrf },
    };
  };
  try {
    return { ...(await fill()), close };
  } catch (error) {
    await close();
    throw error;
  }
}
