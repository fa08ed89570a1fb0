/**
 * The worker process as `npm run bench:delivery` runs it: the real worker (worker/run.ts) plus two
 * tasks the service itself never registers, so the benchmark can measure, on the same database
 * and worker settings, what a delivery costs beyond what it cannot do without:
 * - `app/noop` does nothing: graphile-worker's own job cycle;
 * - `app/bench-post` signs its payload's body and POSTs it through a pinned dispatcher as a
 *   delivery's request is sent, and records nothing: the floor of any delivery that is one job and
 *   one signed HTTP request (`--floor 1`).
 */
import type { Task } from 'graphile-worker';
import { postDelivery } from '../worker/delivery/post.ts';
import { createPinnedDispatcher } from '../worker/delivery/pinned-dispatcher.ts';
import { USER_AGENT } from '../worker/delivery/user-agent.ts';
import { generateSecret, signedHeaders } from '../shared/webhooks/signing.ts';
import { runWorker } from '../worker/run.ts';

const secrets = [generateSecret()];
const dispatcher = createPinnedDispatcher({
  allowPrivate: true,
  connectTimeoutMs: 5_000,
  connections: Number(process.env.APP_WEBHOOKS__CONCURRENCY ?? 128),
});

const benchPost: Task = async (payload) => {
  const { url, id, body } = payload as { url: string; id: string; body: string };
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    ...signedHeaders({ id, timestamp: Math.floor(Date.now() / 1000), body, secrets }),
  };
  const result = await postDelivery(dispatcher, {
    url,
    headers,
    body,
    timeoutMs: 15_000,
    allowHttp: true,
    allowPrivate: true,
  });
  if (result.kind !== 'response' || result.status >= 300)
    throw new Error(`bench post failed: ${JSON.stringify(result)}`);
};

await runWorker({ extraTasks: { 'app/noop': async () => {}, 'app/bench-post': benchPost } });
