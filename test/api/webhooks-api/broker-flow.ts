/**
 * The broker destinations' end-to-end tests share this: the web process and the real worker on
 * the file's database, with many attempts and a short backoff (a fault is fixed while the
 * delivery is still being retried), a tenant of its own per test, and waits on what the worker
 * records.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../../helpers/poll.ts';
import { attemptRows, deliveryRow, type AttemptRow, type DeliveryRow } from '../../worker/helpers.ts';
import { call, createEndpoint, startApi, startDeliveryWorker, type ApiHarness } from './helpers.ts';

/** Attempts 1 s each at most, retried after 50 ms to 250 ms, up to 30 times. */
export const BROKER_FLAGS = {
  webhooks: { timeout: '1s', maxAttempts: 30, backoff: { base: '50ms', factor: 2, max: '250ms', jitter: 0.2 } },
};

/** The web process and a running worker (stopped by `closeAll`). */
export async function startBrokerApp(flags: Record<string, unknown> = BROKER_FLAGS): Promise<ApiHarness> {
  const app = await startApi(flags);
  await startDeliveryWorker(app);
  return app;
}

/** A member token of a new tenant, and an endpoint of that tenant at `url` for every event. */
export async function tenantEndpoint(app: ApiHarness, url: string, extra: Record<string, unknown> = {}) {
  const token = await app.token('member', `tenant-${randomUUID()}`);
  const endpoint = await createEndpoint(app, token, { url, ...extra });
  return { token, endpoint };
}

/** Emits `order.created` with `data` through the API, answering the delivery's id. */
export async function emitOrder(app: ApiHarness, token: string, data: unknown): Promise<string> {
  const emitted = await call('POST', `${app.api}/events`, { token, body: { type: 'order.created', data } });
  if (emitted.status !== 202) throw new Error(`emit failed: ${emitted.status} ${emitted.text}`);
  return emitted.body.deliveryIds[0];
}

/** Waits until delivery `id` is `status`, answering its row. */
export function deliveryIs(app: ApiHarness, id: string, status: string, timeoutMs = 20_000): Promise<DeliveryRow> {
  return eventually(
    async () => {
      const row = await deliveryRow(app.h, id);
      return row?.status === status ? row : undefined;
    },
    timeoutMs,
    `delivery ${id} to be ${status}`,
  );
}

/** Waits until delivery `id` has at least `count` attempts, answering them. */
export function attemptsOf(app: ApiHarness, id: string, count: number, timeoutMs = 20_000): Promise<AttemptRow[]> {
  return eventually(
    async () => {
      const rows = await attemptRows(app.h, id);
      return rows.length >= count ? rows : undefined;
    },
    timeoutMs,
    `${count} attempts of delivery ${id}`,
  );
}

/** The event `body` carries, verified by the standardwebhooks library with `headers`. */
export function verified(secret: string, body: string, headers: Record<string, string>): unknown {
  return new Webhook(secret).verify(body, headers);
}
