/**
 * A web process (createWebServer, real HTTP on port 0) with routes that count how often their
 * action ran, for the idempotency and rate-limit tests. A stub authentication step in the
 * `user` slot sets `ctx.state.principal` from `X-Test-Principal: <id>` (a signed-in user, with
 * `X-Test-Session: <id>` as its session), or, with `X-Test-Session` alone, the principal of a
 * tenant portal session of `acme` (every portal session of an owner shares the principal's id).
 */
import { after } from 'node:test';
import { Readable } from 'node:stream';
import type { Middleware } from 'koa';
import { createWebServer, type WebServer } from '../../../api/server.ts';
import type { Controller } from '../../../api/model-framework/routing/controller.ts';
import type { RouteTable } from '../../../api/model-framework/routing/table.ts';
import type { Principal } from '../../../api/model-framework/routing/roles.ts';
import { AppError } from '../../../shared/errors/app-error.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import type { SharedStore } from '../../../shared/stores/types.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { linesInto } from '../../helpers/logs.ts';

export const ROUTES: RouteTable = {
  'POST /orders': { controller: 'orders.create' },
  'PUT /orders/:id': { controller: 'orders.replace' },
  'PATCH /orders/:id': { controller: 'orders.update' },
  'DELETE /orders/:id': { controller: 'orders.destroy' },
  'GET /orders': { controller: 'orders.index' },
  'POST /fail': { controller: 'orders.fail' },
  'POST /crash': { controller: 'orders.crash' },
  'POST /refuse': { controller: 'orders.refuse' },
  'POST /stream': { controller: 'orders.stream' },
  'POST /opt-out': { controller: 'orders.create', idempotent: false },
  'POST /login': { controller: 'session.login' },
  'POST /limited': { controller: 'orders.create', rateLimit: { windowMs: 60_000, max: 3 } },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Latches an action waits on (`?hold=<name>`) until the test releases them; `reached` says an action is waiting. */
export class Holds {
  private readonly waiting = new Map<
    string,
    {
      promise: Promise<void>;
      release: () => void;
      reached: Promise<void>;
      arrive: () => void;
      closed: Promise<void>;
      close: () => void;
    }
  >();
  private entry(name: string) {
    let entry = this.waiting.get(name);
    if (!entry) {
      let release: () => void = () => {};
      let arrive: () => void = () => {};
      let close: () => void = () => {};
      const promise = new Promise<void>((resolve) => (release = resolve));
      const reached = new Promise<void>((resolve) => (arrive = resolve));
      const closed = new Promise<void>((resolve) => (close = resolve));
      entry = { promise, release, reached, arrive, closed, close };
      this.waiting.set(name, entry);
    }
    return entry;
  }
  wait = (name: string, request?: { once(event: 'close', listener: () => void): unknown }) => {
    const entry = this.entry(name);
    request?.once('close', entry.close);
    entry.arrive();
    return entry.promise;
  };
  /** Resolves once an action waits on `name`. */
  reached = (name: string) => this.entry(name).reached;
  /** Resolves once the answer of the request waiting on `name` closed before it was sent (the client went). */
  closed = (name: string) => this.entry(name).closed;
  release = (name: string) => this.entry(name).release();
}

/** Counts runs per path; `?ms=` makes the action take that long, `?hold=<name>` waits for `holds.release(name)`. */
export function countingControllers(runs: Map<string, number>, holds = new Holds()): Record<string, Controller> {
  const count = (path: string) => {
    const n = (runs.get(path) ?? 0) + 1;
    runs.set(path, n);
    return n;
  };
  const create = async (ctx: Parameters<Controller[string]>[0]) => {
    const run = count(ctx.path);
    if (ctx.query.ms) await sleep(Number(ctx.query.ms));
    if (typeof ctx.query.hold === 'string') await holds.wait(ctx.query.hold, ctx.res);
    ctx.status = 201;
    ctx.set('Location', `/orders/${run}`);
    ctx.set('X-Run', String(run));
    ctx.body = { run, received: ctx.request.body ?? null, at: process.hrtime.bigint().toString() };
  };
  return {
    orders: {
      create,
      index: (ctx) => {
        ctx.body = { runs: Object.fromEntries(runs) };
      },
      replace: create,
      update: create,
      destroy: (ctx) => {
        count(ctx.path);
        ctx.status = 204;
      },
      fail: (ctx) => {
        const run = count(ctx.path);
        ctx.status = Number(ctx.query.status ?? 503);
        ctx.body = { run, failed: true };
      },
      crash: () => {
        count('/crash');
        throw new Error('boom');
      },
      refuse: () => {
        count('/refuse');
        throw new AppError(422, 'not acceptable input', { code: 'APP_TEST_REFUSED' });
      },
      stream: (ctx) => {
        const run = count(ctx.path);
        ctx.type = 'text/plain';
        ctx.body = Readable.from([`run ${run}\n`, 'streamed\n']);
      },
    },
    session: {
      login: (ctx) => {
        const run = count(ctx.path);
        ctx.body = { run };
      },
    },
  };
}

/** Sets the principal (with its session) from test headers. */
export function stubCaller(): Middleware {
  return async function stubCaller(ctx, next) {
    const principal = ctx.get('X-Test-Principal');
    const session = ctx.get('X-Test-Session') || undefined;
    if (principal)
      ctx.state.principal = {
        kind: 'user',
        id: principal,
        userId: principal,
        roles: [],
        sessionId: session,
      } as Principal;
    else if (session)
      ctx.state.principal = {
        kind: 'portal',
        id: 'portal:acme',
        roles: ['member'],
        owner: 'acme',
        sessionId: session,
      } as Principal;
    await next();
  };
}

export interface GuardedApp {
  base: string;
  web: WebServer;
  db: TestDatabase;
  runs: Map<string, number>;
  /** Releases actions held with `?hold=<name>`. */
  holds: Holds;
  logs: Array<Record<string, unknown>>;
}

/** Servers started by this file, stopped when its tests end (registered at import, so a `before` hook can start one). */
const started: WebServer[] = [];
after(async () => {
  await Promise.all(started.splice(0).map((web) => web.shutdown('test')));
});

let database: Promise<TestDatabase> | undefined;
/** This file's database (one per file). */
export const testDatabase = () => (database ??= createTestDatabase());

/** Starts the guarded app; stopped when the file's tests end. */
export async function startGuardedApp(
  options: {
    flags?: Record<string, unknown>;
    env?: Record<string, string>;
    sharedStore?: SharedStore;
    routes?: RouteTable;
  } = {},
): Promise<GuardedApp> {
  const db = await testDatabase();
  const config = db.configWith({ logLevel: 'info', ...options.flags }, options.env);
  const logs: Array<Record<string, unknown>> = [];
  const log = createLogger(config, {
    name: 'test-web',
    destination: linesInto(logs),
  });
  const runs = new Map<string, number>();
  const holds = new Holds();
  const web = createWebServer({
    config,
    log,
    sql: db.sql,
    stores: [],
    sharedStore: options.sharedStore,
    api: { routes: options.routes ?? ROUTES, controllers: countingControllers(runs, holds) },
  });
  web.plug('user', stubCaller());
  started.push(web);
  const { port } = await web.start(0);
  return { base: `http://127.0.0.1:${port}`, web, db, runs, holds, logs };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** A request with a JSON body (or none); parses a JSON answer. */
export async function request(
  method: string,
  url: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method,
    headers: { ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...options.headers },
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, text, body };
}
