/**
 * The delivery listing (shared/webhooks/deliveries/list.ts) at scale: past `api.exactTotal` rows
 * in the table the page is merged from the newest of each state (same order and paging as the
 * one sorted query of a small table), and the total is counted
 * when PostgreSQL expects at most `api.exactTotal` matches (read off a last page without
 * counting), its estimate past that.
 */
import { OPERATOR } from '../../../../shared/access/actor.ts';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import postgres from 'postgres';
import type { Sql } from '../../../../shared/db/connect.ts';
import { listDeliveries } from '../../../../shared/webhooks/deliveries/index.ts';
import { listEvents } from '../../../../shared/webhooks/events/index.ts';
import { tenantActor } from '../../../helpers/actors.ts';
import { forgetTableSizes } from '../../../../shared/db/bounded-total.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { endpoint, harness, send } from '../../../worker/helpers.ts';

const db = await createTestDatabase();
const h = harness(db);
const bounded = harness(db, { api: { exactTotal: 5 } });
const always = harness(db, { api: { exactTotal: 0 } });

/** An owner with 12 deliveries in all four states, created a second apart (some within one millisecond). */
async function history(): Promise<{ owner: string; ids: string[] }> {
  const ep = await endpoint(h, 'http://127.0.0.1:9/');
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) ids.push(...(await send(h, ep)));
  const states = ['pending', 'running', 'done', 'dead'];
  await db.sql`
    update app_webhook_deliveries d
       set status = (${states}::text[])[1 + (n.i % 4)],
           -- two pairs share a creation time: the id breaks the tie
           created_at = '2026-01-01T00:00:00Z'::timestamptz + (case when n.i in (3, 7) then n.i - 1 else n.i end) * interval '1 second'
      from unnest(${ids}::text[]) with ordinality as n (id, i)
     where d.id = n.id`;
  return { owner: ep.owner as string, ids };
}

/** The deliveries of `owner` in the one order a listing promises: newest first, then the larger id. */
async function sortedIds(owner: string, statuses?: string[]): Promise<string[]> {
  const rows = await db.sql<{ id: string }[]>`
    select id from app_webhook_deliveries
     where owner = ${owner} and (${statuses ?? null}::text[] is null or status = any(${statuses ?? null}::text[]))
     order by created_at desc, id desc`;
  return rows.map((row) => row.id);
}

/** One connection of its own (closed after the file's tests), and the statements it sends, in order. */
function watchedConnection(): { sql: Sql; statements: string[] } {
  const statements: string[] = [];
  const sql = postgres(db.url, {
    max: 1,
    onnotice: () => {},
    debug: (_connection, text) => statements.push(text),
  }) as unknown as Sql;
  after(() => sql.end());
  return { sql, statements };
}

describe('delivery listing', () => {
  it('merges the newest of each state into one order: every page is the slice of the sorted listing, ties broken by id', async () => {
    const { owner } = await history();
    const expected = await sortedIds(owner);
    const pages: string[][] = [];
    for (let page = 1; page <= 3; page++) {
      const { records, total, totalEstimated } = await listDeliveries(h, OPERATOR, { owner, page, perPage: 5 });
      assert.equal(total, 12);
      assert.equal(totalEstimated, false);
      pages.push(records.map((record) => record.id));
    }
    assert.deepEqual(
      pages,
      [expected.slice(0, 5), expected.slice(5, 10), expected.slice(10)],
      'a small table: one sorted query',
    );
    forgetTableSizes();
    const merged: string[][] = [];
    for (let page = 1; page <= 3; page++) {
      merged.push(
        (await listDeliveries(bounded, OPERATOR, { owner, page, perPage: 5 })).records.map((record) => record.id),
      );
    }
    assert.deepEqual(
      merged,
      pages,
      'a table past api.exactTotal: the newest of each state, merged, page for page the same',
    );
  });

  it('a state filter lists only those states, in the same order, and a state named twice lists its deliveries once', async () => {
    const { owner } = await history();
    const { records, total } = await listDeliveries(h, OPERATOR, {
      owner,
      statuses: ['dead', 'done', 'dead'],
      page: 1,
      perPage: 25,
    });
    assert.deepEqual(
      records.map((record) => record.id),
      await sortedIds(owner, ['done', 'dead']),
    );
    assert.equal(total, 6);
  });

  it("a small table counts the total in the page's own statement, and a page past the end on its own", async () => {
    const { owner } = await history();
    const { sql: watched, statements } = watchedConnection();
    const counting = { ...h, sql: watched };
    forgetTableSizes();
    await listDeliveries(counting, OPERATOR, { owner, page: 1, perPage: 5 }); // reads the table's size once
    statements.length = 0;
    const first = await listDeliveries(counting, OPERATOR, { owner, page: 1, perPage: 5 });
    assert.deepEqual([first.total, first.totalEstimated, first.records.length], [12, false, 5]);
    assert.equal(statements.length, 1, statements.join('\n---\n'));
    statements.length = 0;
    const beyond = await listDeliveries(counting, OPERATOR, { owner, statuses: ['dead'], page: 2, perPage: 5 });
    assert.deepEqual([beyond.total, beyond.totalEstimated, beyond.records.length], [3, false, 0]);
    assert.equal(statements.length, 2, 'the empty page, then its count');
    const none = await listDeliveries(counting, OPERATOR, { owner: 'nobody-here', page: 1, perPage: 5 });
    assert.deepEqual([none.total, none.totalEstimated, none.records.length], [0, false, 0]);
  });

  it("past api.exactTotal the total is PostgreSQL's estimate, above the bound, and says so; a last page or a count under the bound is exact", async () => {
    const { owner } = await history();
    forgetTableSizes(); // the table is past the bound of 5 now: the listing for big tables answers
    const past = await listDeliveries(bounded, OPERATOR, { owner, page: 1, perPage: 5 });
    assert.equal(past.totalEstimated, true);
    assert.ok(past.total >= 6, `an estimate is at least the bound + 1, got ${past.total}`);
    assert.deepEqual(
      past.records.map((record) => record.id),
      (await sortedIds(owner)).slice(0, 5),
      'the page itself is exact',
    );
    const under = await listDeliveries(bounded, OPERATOR, { owner, statuses: ['dead'], page: 1, perPage: 5 });
    assert.deepEqual([under.total, under.totalEstimated], [3, false]);
    const exact = await listDeliveries(always, OPERATOR, { owner, page: 1, perPage: 5 });
    assert.deepEqual([exact.total, exact.totalEstimated], [12, false], 'api.exactTotal 0 always counts');
    const last = await listDeliveries(bounded, OPERATOR, { owner, page: 3, perPage: 5 });
    assert.deepEqual(
      [last.total, last.totalEstimated, last.records.length],
      [12, false, 2],
      'a last page tells the total without counting',
    );
    const beyond = await listDeliveries(bounded, OPERATOR, { owner, statuses: ['dead'], page: 2, perPage: 5 });
    assert.deepEqual(
      [beyond.total, beyond.totalEstimated, beyond.records.length],
      [3, false, 0],
      'a page past the end still counts',
    );
  });

  it('each listed delivery says whether its endpoint is enabled, for an admin and a member, in a small table and a big one', async () => {
    const on = await endpoint(h, 'http://127.0.0.1:9/on');
    const owner = on.owner as string;
    const off = await endpoint(h, 'http://127.0.0.1:9/off', { owner });
    for (let i = 0; i < 4; i++) await send(h, on);
    await db.sql`update app_webhooks set disabled_at = now() where id = ${off.id}`;
    const expected = await sortedIds(owner);
    const enabledOf = new Map(
      (
        await db.sql<{ id: string; endpoint_id: string }[]>`
      select id, endpoint_id from app_webhook_deliveries where owner = ${owner}`
      ).map((row) => [row.id, row.endpoint_id === on.id]),
    );
    assert.deepEqual(new Set(enabledOf.values()), new Set([true, false]), 'deliveries to both endpoints');
    forgetTableSizes();
    for (const [shape, deps] of [
      ['small table', h],
      ['big table', bounded],
    ] as const) {
      for (const [who, scope] of [
        ['admin', OPERATOR],
        ['member', tenantActor(owner)],
      ] as const) {
        const { records } = await listDeliveries(deps, scope, { owner, page: 1, perPage: 25 });
        assert.deepEqual(
          records.map((record) => record.id),
          expected,
          `${shape}, ${who}: every delivery, in order`,
        );
        assert.deepEqual(
          records.map((record) => record.endpointEnabled),
          expected.map((id) => enabledOf.get(id)),
          `${shape}, ${who}: endpointEnabled`,
        );
      }
    }
  });

  it('a member lists the deliveries of the endpoints its tenant owns now, in a small table and a big one; an owner filter lists the deliveries made for that owner', async () => {
    const { owner } = await history();
    const moved = await endpoint(h, 'http://127.0.0.1:9/moved', { owner });
    await send(h, moved); // to both of the tenant's endpoints
    await send(h, moved);
    await db.sql`update app_endpoint_gate set owner = ${`${owner}-elsewhere`} where endpoint_id = ${moved.id}`;
    const idsOf = async (rows: Promise<{ id: string }[]>) => (await rows).map((row) => row.id).sort();
    const kept = await idsOf(db.sql`
      select id from app_webhook_deliveries where owner = ${owner} and endpoint_id <> ${moved.id}`);
    const all = await idsOf(db.sql`select id from app_webhook_deliveries where owner = ${owner}`);
    assert.equal(all.length - kept.length, 2, "two deliveries to the endpoint now another tenant's");
    forgetTableSizes();
    for (const [shape, deps] of [
      ['small table', h],
      ['big table', bounded],
    ] as const) {
      const mine = await listDeliveries(deps, tenantActor(owner), { page: 1, perPage: 25 });
      assert.deepEqual(
        mine.records.map((record) => record.id).sort(),
        kept,
        `${shape}: the member sees its endpoints' deliveries, not the moved endpoint's`,
      );
      const made = await listDeliveries(deps, OPERATOR, { owner, page: 1, perPage: 25 });
      assert.deepEqual(
        made.records.map((record) => record.id).sort(),
        all,
        `${shape}: an admin's owner filter lists every delivery made for the owner`,
      );
    }
  });

  it('the event listing bounds its total the same way', async () => {
    const { owner } = await history();
    forgetTableSizes();
    const past = await listEvents(bounded, OPERATOR, { owner, page: 1, perPage: 5 });
    assert.equal(past.totalEstimated, true);
    assert.ok(past.total >= 6);
    const exact = await listEvents(h, OPERATOR, { owner, page: 3, perPage: 5 });
    assert.deepEqual([exact.total, exact.totalEstimated, exact.records.length], [12, false, 2]);
  });

  it("past api.exactTotal a listing asked again within ten seconds neither asks PostgreSQL's estimate nor counts past the bound again; a total under the bound is counted each time", async () => {
    const { owner, ids } = await history();
    const { sql: watched, statements } = watchedConnection();
    const deps = { ...bounded, sql: watched };
    forgetTableSizes();
    await listDeliveries(deps, OPERATOR, { owner: 'nobody-here', page: 1, perPage: 5 }); // the table's size, read once
    statements.length = 0;
    const first = await listDeliveries(deps, OPERATOR, { owner, page: 1, perPage: 5 });
    assert.equal(first.totalEstimated, true);
    assert.ok(
      statements.some((text) => /^\s*explain/.test(text)),
      'the first listing asks for the estimate',
    );
    statements.length = 0;
    const again = await listDeliveries(deps, OPERATOR, { owner, page: 1, perPage: 5 });
    assert.deepEqual([again.total, again.totalEstimated], [first.total, true], 'the same estimate');
    // (in the transaction that asks for its generic plan: shared/db/generic-plan.ts)
    const asked = statements.filter((text) => !/^\s*(begin|commit|set local plan_cache_mode\b)/.test(text));
    assert.equal(asked.length, 1, `the page alone:\n${statements.join('\n---\n')}`);

    const under = await listDeliveries(deps, OPERATOR, { owner, statuses: ['dead'], page: 1, perPage: 2 });
    assert.deepEqual([under.total, under.totalEstimated], [3, false], 'under the bound: counted');
    await db.sql`update app_webhook_deliveries set status = 'dead' where id = ${ids[0]} and status <> 'dead'`;
    const more = await listDeliveries(deps, OPERATOR, { owner, statuses: ['dead'], page: 1, perPage: 2 });
    assert.deepEqual([more.total, more.totalEstimated], [4, false], 'counted again: the new dead delivery is in');
  });

  it("a first page has its limits in the text and keeps a plan when one plan serves every value of its filters (states, endpoint, owner, tenant); a later page of those, an owner's first page and its count ask for the generic plan; a type's keeps parameters and is planned for its values", async () => {
    const { owner } = await history();
    const [{ endpoint_id: endpointId }] = await db.sql<{ endpoint_id: string }[]>`
      select endpoint_id from app_webhook_deliveries where owner = ${owner} limit 1`;
    const { sql: watched } = watchedConnection();
    const deps = { ...bounded, sql: watched };
    forgetTableSizes();
    for (let i = 0; i < 8; i++) {
      await listDeliveries(deps, OPERATOR, { page: 1, perPage: 5 });
      await listDeliveries(deps, OPERATOR, { statuses: ['dead'], page: 1, perPage: 5 });
      await listDeliveries(deps, OPERATOR, { endpoint: endpointId, page: 1, perPage: 5 });
      await listDeliveries(deps, tenantActor(owner), { page: 1, perPage: 5 });
      await listDeliveries(deps, OPERATOR, { owner, page: 1, perPage: 5 });
      await listEvents(deps, OPERATOR, { page: 1, perPage: 5 });
      await listEvents(deps, tenantActor(owner), { page: 1, perPage: 5 });
      await listDeliveries(deps, OPERATOR, { page: 2, perPage: 5 });
      await listDeliveries(deps, tenantActor(owner), { page: 2, perPage: 5 });
      await listEvents(deps, OPERATOR, { page: 2, perPage: 5 });
      await listDeliveries(deps, OPERATOR, { type: 'order.created', page: 1, perPage: 5 });
      // three dead ones, two a page: under the bound, so counted at each call
      await listDeliveries(deps, OPERATOR, { owner, statuses: ['dead'], page: 1, perPage: 2 });
    }
    const counts = (
      await watched<{ statement: string; generic_plans: number; custom_plans: number }[]>`
        select statement, generic_plans::int, custom_plans::int from pg_prepared_statements
         where statement like '%count(*)::int as total%'`
    ).filter((plan) => /app_webhook_deliveries d where d\.owner = \$1 and d\.status = any/.test(plan.statement));
    assert.equal(counts.length, 1, `an owner's count of its dead deliveries: ${JSON.stringify(counts)}`);
    assert.deepEqual(
      [counts[0].custom_plans, counts[0].generic_plans],
      [0, 8],
      `counted at each call, never planned for its owner: ${counts[0].statement}`,
    );
    const plans = await watched<{ statement: string; generic_plans: number; custom_plans: number }[]>`
      select statement, generic_plans::int, custom_plans::int from pg_prepared_statements
       where statement like '%endpoint_enabled%' or statement like '%order by e.created_at desc%'`;
    // a delivery page ends with its window; an events page cuts its window in a subquery (`… ) e`)
    // before counting its events' deliveries
    const kept = plans.filter((plan) => /limit 5 offset 0(\s*$|\) e\b)/.test(plan.statement));
    const parameters = plans.filter((plan) => /limit \$\d+ offset \$\d+(\s*$|\) e\b)/.test(plan.statement));
    assert.equal(
      kept.length,
      7,
      `every delivery, the dead ones, an endpoint's, a member's, an owner's; every event, a member's events: ${JSON.stringify(plans)}`,
    );
    for (const plan of kept) assert.ok(plan.generic_plans > 0, `a first page reuses its plan: ${JSON.stringify(plan)}`);
    // an owner's is never planned for its owner, not even the first five calls: PostgreSQL would
    // find a plan made for a big owner it knows cheaper than the one it keeps, and plan each call
    const owners = kept.filter((plan) => /[de]\.owner = \$/.test(plan.statement));
    assert.equal(owners.length, 3, `a member's, an owner's, a member's events: ${JSON.stringify(kept)}`);
    for (const plan of owners) assert.equal(plan.custom_plans, 0, `generic plan only: ${plan.statement}`);
    assert.equal(
      parameters.length,
      4,
      `the second page, a member's second page, the events' second page, a type's first page: ${JSON.stringify(plans)}`,
    );
    // a later page is read through one index whatever its offset, and PostgreSQL would plan it at
    // every call: the generic plan is asked for, so not one is planned for its values, not even
    // the first five calls
    const typed = (plan: { statement: string }) => /event_type = \$/.test(plan.statement);
    const generic = parameters.filter((plan) => !typed(plan));
    assert.equal(generic.length, 3, `the second pages: ${JSON.stringify(plans)}`);
    for (const plan of generic)
      assert.deepEqual([plan.custom_plans, plan.generic_plans > 0], [0, true], `generic plan only: ${plan.statement}`);
    // a plan made for no type in particular would serve a rare one as an average one (through
    // everybody else's rows): it is left to PostgreSQL, which plans it for its values (at least
    // the first five calls; whether it goes on doing so depends on the table)
    for (const plan of parameters.filter(typed))
      assert.ok(plan.custom_plans > 0, `planned for its values: ${JSON.stringify(plan)}`);
    const [{ mode }] = await watched<{ mode: string }[]>`select current_setting('plan_cache_mode') as mode`;
    assert.equal(mode, 'auto', "the connection's own setting is left as it was");
  });
});

/** Rows a plan read and dropped or returned at its scans (EXPLAIN ANALYZE, JSON). */
function rowsRead(node: Record<string, unknown>): number {
  const own = /Scan/.test(String(node['Node Type']))
    ? Number(node['Actual Rows'] ?? 0) + Number(node['Rows Removed by Filter'] ?? 0)
    : 0;
  return (
    own + ((node.Plans as Record<string, unknown>[] | undefined) ?? []).reduce((sum, child) => sum + rowsRead(child), 0)
  );
}

describe('delivery listing: what one state of an endpoint costs to read', () => {
  it("a state the endpoint has none of is found empty without reading the endpoint's history or that state's other deliveries", async () => {
    const quiet = await endpoint(h, 'http://127.0.0.1:9/quiet');
    const busy = await endpoint(h, 'http://127.0.0.1:9/busy');
    // the endpoint's history is all done; another endpoint has as many pending
    await db.sql`
      insert into app_webhook_deliveries (id, event_id, endpoint_id, owner, event_type, queue, body, status, attempts, created_at, updated_at)
      select 'msg_state' || e.n || '_' || g, 'evt_state' || g, e.id, e.owner, 'order.created', 'webhooks', '{}', e.status, 1,
             now() - g * interval '1 second', now()
        from generate_series(1, 3000) as g,
             (values (1, ${quiet.id}, ${quiet.owner}, 'done'), (2, ${busy.id}, ${busy.owner}, 'pending')) as e (n, id, owner, status)`;
    await db.sql`analyze app_webhook_deliveries`;
    // the query of one state's branch of a big table's listing (shared/webhooks/deliveries/list.ts)
    const [{ 'QUERY PLAN': plan }] = await db.sql<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }[]>`
      explain (analyze, format json)
      select d.id from app_webhook_deliveries d join app_webhooks w on w.id = d.endpoint_id
       where d.status = 'pending' and d.endpoint_id = ${quiet.id}
       order by d.created_at desc, d.id desc limit 25`;
    const read = rowsRead(plan[0].Plan);
    assert.ok(
      read < 50,
      `the listing read ${read} rows to find none (migrations/017: the state is in the endpoint's index)`,
    );
  });
});

describe("delivery listing: what a tenant's state costs to read", () => {
  it("a state the tenant has none of is found empty without reading the other tenants' deliveries in that state", async () => {
    const mine = await endpoint(h, 'http://127.0.0.1:9/mine');
    const theirs = await endpoint(h, 'http://127.0.0.1:9/theirs');
    await db.sql`
      insert into app_webhook_deliveries (id, event_id, endpoint_id, owner, event_type, queue, body, status, attempts, created_at, updated_at)
      select 'msg_tenant' || e.n || '_' || g, 'evt_tenant' || g, e.id, e.owner, 'order.created', 'webhooks', '{}', e.status, 1,
             now() - g * interval '1 second', now()
        from generate_series(1, 3000) as g,
             (values (1, ${mine.id}, ${mine.owner}, 'done'), (2, ${theirs.id}, ${theirs.owner}, 'pending')) as e (n, id, owner, status)`;
    await db.sql`analyze app_webhook_deliveries`;
    // one state's branch of a big table's listing filtered by owner (shared/webhooks/deliveries/list.ts;
    // a member's adds its endpoints' owner, which the planner may or may not go through)
    const [{ 'QUERY PLAN': plan }] = await db.sql<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }[]>`
      explain (analyze, format json)
      select d.id from app_webhook_deliveries d join app_webhooks w on w.id = d.endpoint_id
       where d.status = 'pending' and d.owner = ${mine.owner}
       order by d.created_at desc, d.id desc limit 25`;
    const read = rowsRead(plan[0].Plan);
    assert.ok(
      read < 50,
      `the listing read ${read} rows to find none (migrations/018: the owner is indexed with the state)`,
    );
  });
});

/** The scans of a plan (EXPLAIN, JSON) on deliveries' partitions: each partition's name and the index it reads or the scan's type. */
function deliveryScans(node: Record<string, unknown>): string[] {
  const own =
    /Scan/.test(String(node['Node Type'])) && String(node['Relation Name'] ?? '').startsWith('app_webhook_deliveries')
      ? [`${node['Relation Name']} ${node['Index Name'] ?? node['Node Type']}`]
      : [];
  return [...own, ...((node.Plans as Record<string, unknown>[] | undefined) ?? []).flatMap(deliveryScans)];
}

describe('delivery listing: a plan made for no tenant in particular', () => {
  it("reads each tenant's deliveries and events through the owner's own index, whatever the tenants' shares (owners are many to PostgreSQL's estimates, migrations/031)", async () => {
    const own = await createTestDatabase();
    const oh = harness(own, { api: { exactTotal: 5 } });
    const [big, other, small] = [
      await endpoint(oh, 'http://127.0.0.1:9/big'),
      await endpoint(oh, 'http://127.0.0.1:9/other'),
      await endpoint(oh, 'http://127.0.0.1:9/small'),
    ];
    // two tenants sharing most of the last days' deliveries, a third with one in five hundred;
    // done and dead as a history is, every state's newest rows spread over the partitions
    await own.sql`
      insert into app_webhook_deliveries (id, event_id, endpoint_id, owner, event_type, queue, body, status, attempts, created_at, updated_at)
      select 'msg_' || app_id_time(x.at) || lpad(g::text, 16, '0'), 'evt_plan' || g, e.id, e.owner, 'order.created',
             'webhooks', '{}', case when g % 7 = 0 then 'dead' else 'done' end, 1, x.at, x.at
        from generate_series(1, 20000) as g
       cross join lateral (select now() - g * interval '30 seconds' as at,
                                  case when g % 500 = 0 then 3 when g % 2 = 0 then 1 else 2 end as n) as x
        join (values (1, ${big.id}, ${big.owner}), (2, ${other.id}, ${other.owner}), (3, ${small.id}, ${small.owner}))
             as e (n, id, owner) on e.n = x.n`;
    await own.sql`
      insert into app_events (id, type, owner, payload, created_at)
      select 'evt_' || app_id_time(x.at) || lpad(g::text, 16, '0'), 'order.created', e.owner, '{}', x.at
        from generate_series(1, 20000) as g
       cross join lateral (select now() - g * interval '30 seconds' as at,
                                  case when g % 500 = 0 then 3 when g % 2 = 0 then 1 else 2 end as n) as x
        join (values (1, ${big.owner}), (2, ${other.owner}), (3, ${small.owner})) as e (n, owner) on e.n = x.n`;
    await own.sql`analyze app_webhook_deliveries, app_events`;
    const statements: string[] = [];
    const sent = new Map<string, { values: unknown[]; types: number[] }>();
    const watched = postgres(own.url, {
      max: 1,
      onnotice: () => {},
      debug: (_c, text, values, types) => {
        statements.push(text);
        sent.set(text, { values, types });
      },
    });
    try {
      const deps = { ...oh, sql: watched as unknown as Sql };
      await listDeliveries(deps, tenantActor(small.owner as string), { page: 1, perPage: 25 });
      await listDeliveries(deps, OPERATOR, { owner: small.owner as string, page: 1, perPage: 25 });
      await listEvents(deps, tenantActor(small.owner as string), { page: 2, perPage: 25 });
    } finally {
      await watched.end();
    }
    const holding = (
      await own.sql<{ name: string }[]>`select distinct tableoid::regclass::text as name from app_webhook_deliveries`
    ).map((row) => row.name);
    const pages = [...new Set(statements.filter((text) => /endpoint_enabled/.test(text)))];
    assert.equal(pages.length, 2, `a member's page and an operator's page of one owner: ${pages.join('\n---\n')}`);
    // the plan PostgreSQL makes for no value of the statement's parameters: the statement prepared
    // and explained with plan_cache_mode force_generic_plan (EXPLAIN's own generic_plan option is
    // PostgreSQL 16's, and the service runs on 15), executed with the values it was sent with
    const genericPlanOf = (text: string) =>
      own.sql.begin(async (tx) => {
        await tx`set local plan_cache_mode = force_generic_plan`;
        const { values, types: oids } = sent.get(text) ?? { values: [], types: [] };
        // the parameters' types as the driver sent them (PREPARE infers none it cannot see)
        const [{ types }] = await tx<{ types: string[] }[]>`
          select coalesce(array_agg(format_type(oid, null) order by n), '{}') as types
            from unnest(${oids}::oid[]) with ordinality as t (oid, n)`;
        // the simple protocol: the text's parameters are the prepared statement's, not this one's
        await tx.unsafe(`prepare generic_probe (${types.join(', ')}) as ${text}`).simple();
        // EXECUTE's arguments as literals: a bound one gets no type from the statement it is given to
        const literal = (value: unknown, index: number) =>
          value === null ? 'null' : `'${String(value).replace(/'/g, "''")}'::${types[index]}`;
        const [row] = await tx
          .unsafe<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }[]>(
            `explain (format json) execute generic_probe${values.length > 0 ? `(${values.map(literal).join(', ')})` : ''}`,
          )
          .simple();
        await tx.unsafe('deallocate generic_probe');
        return row['QUERY PLAN'][0].Plan;
      });
    for (const page of pages) {
      const plan = await genericPlanOf(page);
      // an empty partition is read as it is, whatever the plan (until its rows are analyzed)
      const scans = deliveryScans(plan).filter((scan) => holding.includes(scan.split(' ')[0]));
      assert.ok(scans.length > 0, 'the plan reads the partitions holding deliveries');
      assert.deepEqual(
        scans.filter((scan) => !scan.includes('owner_status')),
        [],
        `every partition read through the owner's index (a state's index would read the others' rows): ${page}`,
      );
    }
    const [events] = statements.filter((text) => /order by e\.created_at desc/.test(text));
    assert.match(
      JSON.stringify(await genericPlanOf(events)),
      /"Index Name":"app_events_owner_created"/,
      `a member's events read through the owner's index, not all events in order: ${events}`,
    );
  });
});
