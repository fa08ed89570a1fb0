/**
 * The end-to-end path of a broker destination, shared by each broker's end-to-end tests: a real
 * web process and the real delivery worker on one test database (the loopback and plain schemes
 * allowed, a quick backoff and room for retries), endpoints registered and events emitted over
 * the HTTP API, deliveries and their attempts read back from the database (polling the API
 * would run into its rate limit).
 */
import { call, startApi, startDeliveryWorker, type ApiHarness } from '../../api/webhooks-api/helpers.ts';
import { eventually } from '../../helpers/poll.ts';
import { attemptRows, settled } from '../helpers.ts';

/** The fast test config with room for retries: 12 attempts 100-400 ms apart, 1 s per attempt. */
export const RETRYING = {
  webhooks: {
    allowHttp: true,
    allowPrivate: true,
    timeout: '1s',
    maxAttempts: 12,
    backoff: { base: '100ms', factor: 2, max: '400ms', jitter: 0.2 },
  },
};

export interface Attempt {
  outcome: string;
  error: string | null;
}

export interface Registered {
  externalId: string;
  secret: string;
  owner: string;
}

export interface BrokerFlow {
  app: ApiHarness;
  token: string;
  /**
   * Registers an endpoint for every event at `url`, owned by a tenant of its own (so tests do
   * not fan out to each other's endpoints); its id, secret and owner.
   */
  register(url: string, extra?: Record<string, unknown>): Promise<Registered>;
  /** Emits `order.created` with `data` to the tenant of `to`; the delivery id. */
  emit(to: Registered, data: unknown): Promise<string>;
  /** Waits until delivery `id` is `status`; its attempts. */
  until(id: string, status: string, timeoutMs?: number): Promise<Attempt[]>;
  /** Waits until delivery `id` has `count` failed attempts; them. */
  failedAttempts(id: string, count: number, timeoutMs?: number): Promise<Attempt[]>;
}

let tenants = 0;

/** The web process and the worker of this file, and an admin token. */
export async function brokerFlow(flags: Record<string, unknown> = RETRYING): Promise<BrokerFlow> {
  const app = await startApi(flags);
  await startDeliveryWorker(app);
  const token = await app.token('admin');
  return {
    app,
    token,
    async register(url, extra = {}) {
      tenants += 1;
      const owner = `tenant-${process.pid}-${tenants}`;
      const created = await call('POST', `${app.api}/webhooks`, {
        token,
        body: { url, events: ['*'], owner, ...extra },
      });
      if (created.status !== 201) throw new Error(`register failed: ${created.status} ${created.text}`);
      return created.body;
    },
    async emit(to, data) {
      const emitted = await call('POST', `${app.api}/events`, {
        token,
        body: { type: 'order.created', data, owner: to.owner },
      });
      if (emitted.status !== 202) throw new Error(`emit failed: ${emitted.status} ${emitted.text}`);
      return emitted.body.deliveryIds[0];
    },
    async until(id, status, timeoutMs = 20_000) {
      await settled(app.h, id, [status], timeoutMs);
      return attemptRows(app.h, id);
    },
    async failedAttempts(id, count, timeoutMs = 20_000) {
      return eventually(
        async () => {
          const failed = (await attemptRows(app.h, id)).filter((attempt) => attempt.outcome !== 'done');
          return failed.length >= count ? failed : undefined;
        },
        timeoutMs,
        `${count} failed attempts of delivery ${id}`,
      );
    },
  };
}
