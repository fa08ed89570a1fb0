/**
 * `npm run bench:web-memory`: the web process's memory under a steady, mixed load for minutes,
 * run the way production runs it (bench/web-process.ts), the worker beside it so deliveries drain.
 *
 * The load, `--rate` requests a second (at most 32 in flight: a machine that cannot keep up
 * answers fewer; the line says how many), spread over `--ips` client
 * addresses (`X-Forwarded-For`, the web process trusting one proxy: the limiters, the body
 * budget and the idempotency scopes key on them) and `--tokens` bearer tokens minted before
 * (every lookup of the token cache), the limiters at their defaults:
 * - emits (`POST /api/v1/events`) to `--endpoints` endpoints, half of them with an
 *   `Idempotency-Key` of their own, some with a key sent again;
 * - delivery and event listings over REST and GraphQL (`/_app/gql`, POST and GET), with filters
 *   (status, endpoint, type, since) and pages; a delivery and an event by id;
 * - an endpoint read and updated (its description);
 * - console pages (HTML) in the sessions of `--users` users signed in before, from their own
 *   addresses;
 * - refused requests: bad JSON, unknown routes (API and console), no token, a token of the
 *   right shape that does not exist, a malformed one.
 *
 * Every `--sample` seconds: the web process's resident memory (VmRSS), and through its inspector
 * (started with `--inspect=127.0.0.1:0`) a full garbage collection and what is left after it: heap
 * used and active handles; from its `/metrics`, the bytes its in-process shared store holds
 * (idempotency records, rate-limit counts: bounded by `shared.maxMemoryBytes`, and growing by
 * design as long as the records live). stdout: one line per minute (the medians of its samples)
 * and the last minute against the first; stderr: the samples, the answers by kind and status.
 *
 * `--snapshots 1` writes a heap snapshot at the end of the first minute
 * and at the end to `$TMPDIR/web-memory-<pid>-{first,last}.heapsnapshot`, for comparison by
 * constructor (Chrome's DevTools, Memory tab, "Comparison").
 *
 * Options: --seconds 300 --sample 10 --rate 40 --endpoints 5 --tokens 2000 --ips 5000 --users 4
 * --snapshots 0.
 */
import { randomBytes } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATOR } from '../shared/access/actor.ts';
import { createUser } from '../shared/accounts/users.ts';
import { createToken } from '../shared/tokens/tokens.ts';
import { registerEndpoint } from '../shared/webhooks/endpoints/index.ts';
import {
  benchDatabase,
  benchReceiver,
  median,
  note,
  numberArgs,
  sleep,
  wallClock,
  type BenchDatabase,
} from './common.ts';
import { inspectorUrlOf, openInspector, type Inspector, type LiveSample } from './inspector.ts';
import { memorySample, METRICS_TOKEN, type MemorySample } from './process-memory.ts';
import { startWebProcess, type WebProcess } from './web-process.ts';
import { startWorkerProcess } from './worker-process.ts';

const args = numberArgs({
  seconds: 300,
  sample: 10,
  rate: 40,
  endpoints: 5,
  tokens: 2000,
  ips: 5000,
  users: 4,
  snapshots: 0,
});

const IN_FLIGHT = 32;
const PASSWORD = 'a soak test passphrase nobody guesses 7f3a';
const GQL = '/_app/gql';

interface Request {
  kind: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Fixture {
  tokens: string[];
  endpoints: string[];
  /** Signed-in console users: the cookie header of each, and the address it signed in from. */
  sessions: { cookie: string; ip: string }[];
  /** Ids the listings answered lately (deliveries, events), for reads by id. */
  deliveries: string[];
  events: string[];
  /** Idempotency keys sent, for some to be sent again. */
  keys: string[];
}

let counter = 0;
const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)];
const ipOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
const json = (value: unknown) => JSON.stringify(value);
const api = (fixture: Fixture, kind: string, method: string, path: string, body?: unknown): Request => ({
  kind,
  method,
  path,
  headers: {
    authorization: `Bearer ${pick(fixture.tokens)}`,
    accept: 'application/hal+json',
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  },
  ...(body === undefined ? {} : { body: json(body) }),
});
const gql = (fixture: Fixture, kind: string, query: string, variables: Record<string, unknown>): Request => {
  const request = api(fixture, kind, 'POST', GQL, { query, variables });
  request.headers!.accept = 'application/graphql-response+json';
  return request;
};

const DELIVERIES_QUERY = `query Deliveries($filter: WebhookDeliveryFilter, $page: Int, $perPage: Int) {
  webhookDeliveries(filter: $filter, page: $page, perPage: $perPage) { total page nodes { externalId status endpointId eventId type attemptCount createdAt } }
}`;
const EVENTS_QUERY = `query Events($filter: WebhookEventFilter, $page: Int, $perPage: Int) {
  webhookEvents(filter: $filter, page: $page, perPage: $perPage) { total nodes { externalId type createdAt } }
}`;
const QUEUE_QUERY = '{ webhookQueue { depth pending running dead } }';

/** The mix, by weight: each entry makes one request. */
const MIX: [number, (f: Fixture) => Request][] = [
  [8, (f) => api(f, 'emit', 'POST', '/api/v1/events', { type: 'soak.tick', data: { n: counter++ } })],
  [
    6,
    (f) => {
      const key = `soak-${randomBytes(8).toString('hex')}`;
      f.keys.push(key);
      if (f.keys.length > 200) f.keys.shift();
      const request = api(f, 'emit keyed', 'POST', '/api/v1/events', { type: 'soak.keyed', data: { key } });
      request.headers!['idempotency-key'] = key;
      return request;
    },
  ],
  [
    1,
    (f) => {
      const key = pick(f.keys.length > 0 ? f.keys : ['soak-none']);
      const request = api(f, 'emit replayed', 'POST', '/api/v1/events', { type: 'soak.keyed', data: { key } });
      request.headers!['idempotency-key'] = key;
      return request;
    },
  ],
  [
    8,
    (f) =>
      api(
        f,
        'deliveries',
        'GET',
        `/api/v1/deliveries?${pick([
          'per_page=25',
          'status=done&per_page=10',
          'status=pending,running',
          `endpoint=${pick(f.endpoints)}&page=${1 + Math.floor(Math.random() * 4)}`,
          'type=soak.keyed&per_page=50',
          `since=${new Date(Date.now() - 60_000).toISOString()}`,
          `page=${2 + Math.floor(Math.random() * 5)}&per_page=20`,
        ])}`,
      ),
  ],
  [
    4,
    (f) =>
      api(
        f,
        'events',
        'GET',
        `/api/v1/events?${pick(['per_page=25', 'type=soak.tick', `page=${1 + Math.floor(Math.random() * 5)}`, `until=${new Date().toISOString()}`])}`,
      ),
  ],
  [2, (f) => api(f, 'delivery', 'GET', `/api/v1/deliveries/${pick(f.deliveries.length ? f.deliveries : ['dlv_x'])}`)],
  [1, (f) => api(f, 'event', 'GET', `/api/v1/events/${pick(f.events.length ? f.events : ['evt_x'])}`)],
  [
    6,
    (f) =>
      gql(f, 'gql deliveries', DELIVERIES_QUERY, {
        filter: pick([{}, { status: ['DONE'] }, { endpoint: pick(f.endpoints) }, { type: 'soak.tick' }]),
        page: 1 + Math.floor(Math.random() * 3),
        perPage: pick([10, 25, 50]),
      }),
  ],
  [3, (f) => gql(f, 'gql events', EVENTS_QUERY, { filter: pick([{}, { type: 'soak.keyed' }]), page: 1, perPage: 25 })],
  [
    1,
    (f) => ({
      ...api(f, 'gql get', 'GET', `${GQL}?query=${encodeURIComponent(QUEUE_QUERY)}`),
      headers: { authorization: `Bearer ${pick(f.tokens)}`, accept: 'application/json' },
    }),
  ],
  [3, (f) => api(f, 'endpoint', 'GET', `/api/v1/webhooks/${pick(f.endpoints)}`)],
  [
    1,
    (f) =>
      api(f, 'endpoint update', 'PATCH', `/api/v1/webhooks/${pick(f.endpoints)}`, { description: `soak ${counter++}` }),
  ],
  [
    5,
    (f) => {
      const session = pick(f.sessions);
      return {
        kind: 'console',
        method: 'GET',
        path: pick([
          '/',
          '/endpoints/new',
          `/endpoints/${pick(f.endpoints)}`,
          `/endpoints/${pick(f.endpoints)}?status=done&page=2`,
          `/deliveries/${pick(f.deliveries.length ? f.deliveries : ['dlv_x'])}`,
          '/dead-letters',
          '/event-types',
          '/tokens',
        ]),
        headers: { cookie: session.cookie, accept: 'text/html', 'x-forwarded-for': session.ip },
      };
    },
  ],
  [
    1,
    (f) => ({
      ...api(f, 'bad json', 'POST', '/api/v1/events'),
      headers: { authorization: `Bearer ${pick(f.tokens)}`, 'content-type': 'application/json' },
      body: '{"type": "soak.',
    }),
  ],
  [1, (f) => api(f, 'unknown route', 'GET', `/api/v1/nothing-${counter++}`)],
  [
    1,
    () => ({
      kind: 'unknown page',
      method: 'GET',
      path: `/no-such-page/${counter++}`,
      headers: { accept: 'text/html' },
    }),
  ],
  [1, () => ({ kind: 'no token', method: 'GET', path: '/api/v1/deliveries' })],
  [
    1,
    () => ({
      kind: 'unknown token',
      method: 'GET',
      path: '/api/v1/events',
      headers: { authorization: `Bearer app_tok_${randomBytes(32).toString('base64url')}` },
    }),
  ],
  [
    1,
    () => ({ kind: 'malformed token', method: 'GET', path: '/api/v1/events', headers: { authorization: 'Bearer x' } }),
  ],
];
const TOTAL_WEIGHT = MIX.reduce((sum, [weight]) => sum + weight, 0);

function nextRequest(fixture: Fixture): Request {
  let at = Math.random() * TOTAL_WEIGHT;
  for (const [weight, make] of MIX) {
    at -= weight;
    if (at < 0) return make(fixture);
  }
  return MIX[0][1](fixture);
}

/** Answers by kind and status. */
const answers = new Map<string, Map<number, number>>();

async function send(origin: string, fixture: Fixture, request: Request): Promise<void> {
  const headers: Record<string, string> = {
    'x-forwarded-for': ipOf(Math.floor(Math.random() * args.ips)),
    'x-forwarded-proto': 'https',
    ...request.headers,
  };
  let status = 0;
  try {
    const res = await fetch(`${origin}${request.path}`, { method: request.method, headers, body: request.body });
    status = res.status;
    const text = await res.text();
    if (status === 200 && (request.kind === 'deliveries' || request.kind === 'events')) {
      const ids = [...text.matchAll(/"externalId":"([^"]+)"/g)].map((m) => m[1]);
      const list = request.kind === 'deliveries' ? fixture.deliveries : fixture.events;
      list.push(...ids.slice(0, 5));
      list.splice(0, Math.max(0, list.length - 500));
    }
  } catch {
    // status 0: no answer
  }
  const byStatus = answers.get(request.kind) ?? new Map<number, number>();
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  answers.set(request.kind, byStatus);
}

/** Signs `email` in with its password from `ip`; answers the session's cookie header. */
async function signIn(origin: string, email: string, ip: string): Promise<string> {
  const res = await fetch(`${origin}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip, 'x-forwarded-proto': 'https' },
    body: json({ email, password: PASSWORD }),
    redirect: 'manual',
  });
  await res.arrayBuffer();
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]);
  if (res.status >= 400 || cookies.length === 0) throw new Error(`signing ${email} in: ${res.status}`);
  return cookies.join('; ');
}

interface Sample extends MemorySample {
  at: number;
  live: LiveSample;
}

const mb = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');
const describe = (s: Sample) =>
  `RSS ${mb(s.rssMb)} MB, heap after a full collection ${mb(s.live.heapMb)} MB (external ${mb(s.live.externalMb)} MB), ${s.live.handles} handles ` +
  `(${s.live.resources} resources), shared store ${mb(s.sharedMb)} MB`;

/** Endpoints, tokens and console users on `db`, the deliveries going to `origin`. */
async function makeFixture(db: BenchDatabase, origin: string, emails: readonly string[]): Promise<Fixture> {
  const deps = { config: db.config, sql: db.sql, log: db.log };
  const fixture: Fixture = { tokens: [], endpoints: [], sessions: [], deliveries: [], events: [], keys: [] };
  for (let i = 0; i < args.endpoints; i++)
    fixture.endpoints.push(
      (await registerEndpoint(deps, OPERATOR, { url: `${origin}/soak/${i}`, events: ['soak.*'] })).id,
    );
  for (let i = 0; i < args.tokens; i++)
    fixture.tokens.push((await createToken(deps, { name: `soak ${i}`, role: 'admin' })).token);
  const accounts = { ...deps, now: Date.now };
  for (const email of emails) await createUser(accounts, OPERATOR, { email, role: 'admin', password: PASSWORD });
  note(`${args.endpoints} endpoints, ${args.tokens} tokens, ${emails.length} users made`);
  return fixture;
}

/** The load for `--seconds` against the web process at `origin`, sampled through `inspector`; answers the samples. */
async function soak(
  web: WebProcess,
  inspector: Inspector,
  fixture: Fixture,
  emails: readonly string[],
  delivered: () => number,
): Promise<Sample[]> {
  const origin = `http://127.0.0.1:${web.port}`;
  const samples: Sample[] = [];
  for (const [i, email] of emails.entries()) {
    const ip = `192.168.0.${i + 1}`;
    fixture.sessions.push({ cookie: await signIn(origin, email, ip), ip });
  }
  const started = wallClock();
  const snapshotPath = (name: string) => join(tmpdir(), `web-memory-${process.pid}-${name}.heapsnapshot`);
  const sampler = (async () => {
    for (let at = started + args.sample * 1000; at <= started + args.seconds * 1000 + 1; at += args.sample * 1000) {
      await sleep(Math.max(0, at - wallClock()));
      const sample: Sample = {
        ...(await memorySample(web.child.pid, web.port)),
        at: (at - started) / 1000,
        live: await inspector.afterCollection(),
      };
      samples.push(sample);
      note(`  ${sample.at.toFixed(0)} s: ${describe(sample)}; ${delivered()} delivered`);
      if (args.snapshots && samples.length === perMinute()) {
        await inspector.snapshot(snapshotPath('first'));
        note(`  heap snapshot: ${snapshotPath('first')}`);
      }
    }
  })();
  let inFlight = 0;
  // the offered rate while the machine keeps up; at most IN_FLIGHT at once, and nothing sent past the end
  const end = started + args.seconds * 1000;
  for (let i = 0; ; i++) {
    const wait = started + (i * 1000) / args.rate - wallClock();
    if (wait > 0) await sleep(wait);
    while (inFlight >= IN_FLIGHT && wallClock() < end) await sleep(1);
    if (wallClock() >= end) break;
    inFlight += 1;
    void send(origin, fixture, nextRequest(fixture)).finally(() => {
      inFlight -= 1;
    });
  }
  await sampler;
  while (inFlight > 0) await sleep(10);
  if (args.snapshots) {
    await inspector.snapshot(snapshotPath('last'));
    note(`  heap snapshot: ${snapshotPath('last')}`);
  }
  return samples;
}

const perMinute = () => Math.max(1, Math.round(60 / args.sample));

/** stdout: the run, the last sample of each minute, the last minute against the first. */
function report(samples: readonly Sample[], delivered: number, server: string): void {
  for (const [kind, byStatus] of [...answers].sort()) {
    note(
      `  ${kind}: ${[...byStatus]
        .sort()
        .map(([status, n]) => `${n} × ${status}`)
        .join(', ')}`,
    );
  }
  const requests = [...answers.values()].reduce((sum, m) => sum + [...m.values()].reduce((a, b) => a + b, 0), 0);
  process.stdout.write(
    `bench:web-memory: ${requests} requests in ${args.seconds} s (${(requests / args.seconds).toFixed(1)}/s, ${args.rate}/s offered) (${args.tokens} tokens, ${args.ips} addresses, ${args.users} console users), ` +
      `${delivered} deliveries; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}; ${server}\n`,
  );
  // each minute by the medians of its samples: one sample moves with the requests in flight
  const minutes: Minute[] = [];
  for (let i = 0; i < samples.length; i += perMinute()) minutes.push(minuteOf(samples.slice(i, i + perMinute())));
  for (const [i, m] of minutes.entries())
    process.stdout.write(
      `  minute ${i + 1}: RSS ${mb(m.rssMb)} MB, heap after a full collection ${mb(m.heapMb)} MB, less the shared store ${mb(m.ownMb)} MB, ` +
        `shared store ${mb(m.sharedMb)} MB, ${m.handles} handles (medians of ${m.samples} samples)\n`,
    );
  if (minutes.length < 2) return;
  const first = minutes[0];
  const last = minutes.at(-1)!;
  const span = minutes.length - 1;
  const change = (a: number, b: number) =>
    `${mb(a)} -> ${mb(b)} MB (${b - a >= 0 ? '+' : ''}${((b - a) / span).toFixed(2)} MB/min)`;
  process.stdout.write(
    `  the first minute -> the last: RSS ${change(first.rssMb, last.rssMb)}, ` +
      `heap after a full collection ${change(first.heapMb, last.heapMb)}, ` +
      `less the shared store ${change(first.ownMb, last.ownMb)}, handles ${first.handles} -> ${last.handles}\n`,
  );
}

/** A minute of samples by their medians; `ownMb`: the heap less the shared store. */
interface Minute {
  rssMb: number;
  heapMb: number;
  ownMb: number;
  sharedMb: number;
  handles: number;
  samples: number;
}

function minuteOf(samples: readonly Sample[]): Minute {
  return {
    rssMb: median(samples.map((s) => s.rssMb)),
    heapMb: median(samples.map((s) => s.live.heapMb)),
    ownMb: median(samples.map((s) => s.live.heapMb - s.sharedMb)),
    sharedMb: median(samples.map((s) => s.sharedMb)),
    handles: median(samples.map((s) => s.live.handles)),
    samples: samples.length,
  };
}

async function main() {
  const db = await benchDatabase();
  let delivered = 0;
  const receiver = await benchReceiver(() => {
    delivered += 1;
  });
  const emails = Array.from({ length: args.users }, (_, i) => `soak${i}@example.com`);
  let samples: Sample[] = [];
  try {
    const fixture = await makeFixture(db, receiver.origin, emails);
    const worker = await startWorkerProcess(db);
    try {
      const web = await startWebProcess(db.url, {
        nodeArgs: ['--inspect=127.0.0.1:0'],
        env: {
          APP_TRUST_PROXY: 'true',
          APP_PROXY_HOPS: '1',
          APP_METRICS__TOKEN: METRICS_TOKEN,
          APP_RATE_LIMIT__MAX: '600',
        },
      });
      try {
        const url = inspectorUrlOf(web.output());
        if (!url)
          throw new Error(`the web process did not say where its inspector listens:\n${web.output().slice(0, 2000)}`);
        const inspector = await openInspector(url);
        try {
          samples = await soak(web, inspector, fixture, emails, () => delivered);
        } finally {
          inspector.close();
        }
      } finally {
        await web.stop();
      }
    } finally {
      await worker.stop();
    }
  } finally {
    await receiver.close();
    await db.close();
  }
  report(samples, delivered, db.server);
}

await main();
