/**
 * Hostile input, at random: property-based requests over the REST routes of the webhook API
 * (fast-check, fixed seed printed on failure): arbitrary JSON bodies, ids and query strings, with
 * NUL, lone surrogates, huge numbers, deep nesting and long strings among them, as an admin and as
 * a member bound to one tenant (whose refusals take other paths). No answer is a 5xx, and every
 * refusal is problem+json with an `APP_*` code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { call, closeAll, startApi, type ApiHarness } from '../webhooks-api/helpers.ts';
import { nasty, value } from './arbitraries.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);

/** Bodies shaped like the API's, with hostile values in their fields. */
const endpointBody = fc.record(
  {
    url: fc.oneof(nasty, fc.constant('https://127.0.0.1/fuzz')),
    events: fc.oneof(value, fc.array(nasty, { maxLength: 3 })),
    description: value,
    owner: value,
    headers: value,
    enabled: value,
    disabledReason: value,
  },
  { requiredKeys: [] },
);
const eventBody = fc.record(
  { type: fc.oneof(nasty, fc.constant('order.created')), data: value, owner: value },
  { requiredKeys: [] },
);
const queryString = fc
  .dictionary(
    fc.constantFrom(
      'page',
      'per_page',
      'status',
      'endpoint',
      'event',
      'type',
      'owner',
      'without_owner',
      'since',
      'until',
      'enabled',
      'junk',
    ),
    nasty,
    { maxKeys: 4 },
  )
  .map((entries) => new URLSearchParams(entries).toString());

describe('fuzzed requests over the REST routes', () => {
  after(closeAll); // the worker and servers stop before the database is dropped
  let app: ApiHarness;
  let token: string;
  let endpointId: string;
  /** Per role: its token and an endpoint in its reach. */
  const callers: Record<'admin' | 'member', { token: string; endpointId: string }> = {} as never;

  before(async () => {
    app = await startApi({ rateLimit: { max: 1_000_000 } });
    token = await app.token('admin');
    endpointId = (
      await call('POST', `${app.api}/webhooks`, { token, body: { url: 'https://127.0.0.1/fuzz', events: ['*'] } })
    ).body.externalId;
    callers.admin = { token, endpointId };
    const member = await app.token('member', 'acme');
    callers.member = {
      token: member,
      endpointId: (
        await call('POST', `${app.api}/webhooks`, {
          token: member,
          body: { url: 'https://127.0.0.1/fuzz-acme', events: ['*'] },
        })
      ).body.externalId,
    };
  });

  const check = async (method: string, path: string, body?: unknown, as = token) => {
    const answer = await call(method, `${app.base}${path}`, { token: as, ...(body === undefined ? {} : { body }) });
    assert.ok(
      answer.status < 500,
      `${method} ${path.slice(0, 200)} ${JSON.stringify(body)?.slice(0, 300)}: ${answer.status} ${answer.text.slice(0, 300)}`,
    );
    if (answer.status >= 400) {
      assert.match(answer.headers.get('content-type') ?? '', /problem\+json/, `${method} ${path.slice(0, 200)}`);
      assert.match(
        answer.body?.code ?? '',
        /^APP_[A-Z_]+$/,
        `${method} ${path.slice(0, 200)}: ${answer.text.slice(0, 300)}`,
      );
    }
  };
  const property = (arbitrary: fc.Arbitrary<unknown>, run: (input: never) => Promise<void>) =>
    fc.assert(fc.asyncProperty(arbitrary, run as (input: unknown) => Promise<void>), {
      seed: SEED,
      numRuns: RUNS,
      verbose: true,
    });

  for (const role of ['admin', 'member'] as const) {
    it(`POST /webhooks and PATCH /webhooks/:id with hostile bodies, as ${role}`, async () => {
      const { token: as, endpointId: id } = callers[role];
      await property(endpointBody, async (body) => {
        await check('POST', '/api/v1/webhooks', body, as);
        await check('PATCH', `/api/v1/webhooks/${id}`, body, as);
      });
    });

    it(`POST /events, /webhooks/:id/test and /webhooks/:id/recover with hostile bodies, as ${role}`, async () => {
      const { token: as, endpointId: id } = callers[role];
      await property(fc.tuple(eventBody, value), async ([event, range]: [unknown, unknown]) => {
        await check('POST', '/api/v1/events', event, as);
        await check('POST', `/api/v1/webhooks/${id}/test`, event, as);
        await check('POST', `/api/v1/webhooks/${id}/recover`, { since: range, until: range }, as);
      });
    });
  }

  it('malformed percent-escapes in paths and queries (not UTF-8, truncated)', async () => {
    for (const bad of ['%FF', '%ED%A0%80', '%E0%A4', '%', '%zz', '%00']) {
      for (const path of [`/api/v1/webhooks/${bad}`, `/api/v1/deliveries/${bad}/retry`])
        await check(path.endsWith('retry') ? 'POST' : 'GET', path);
      await check('GET', `/api/v1/deliveries?endpoint=${bad}&status=${bad}`);
    }
  });

  it('hostile ids on every :id route, and hostile query strings on every listing', async () => {
    await property(fc.tuple(nasty, queryString), async ([id, query]: [string, string]) => {
      // the UTF-8 bytes of the id, percent-encoded (a lone surrogate becomes U+FFFD, as a client's would)
      const encoded =
        [...Buffer.from(id.toWellFormed(), 'utf8')]
          .slice(0, 600)
          .map((byte) => `%${byte.toString(16).padStart(2, '0')}`)
          .join('') || 'x';
      for (const path of [
        `/api/v1/webhooks/${encoded}`,
        `/api/v1/events/${encoded}`,
        `/api/v1/deliveries/${encoded}`,
        `/api/v1/webhooks/${encoded}/deliveries`,
      ]) {
        await check('GET', path);
      }
      await check('POST', `/api/v1/deliveries/${encoded}/retry`);
      await check('POST', `/api/v1/webhooks/${encoded}/rotate`, { grace: id });
      for (const path of ['/api/v1/webhooks', '/api/v1/events', '/api/v1/deliveries'])
        await check('GET', `${path}?${query}`);
    });
  });
});
