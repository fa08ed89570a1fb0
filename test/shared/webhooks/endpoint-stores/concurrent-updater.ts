/**
 * A child process of the contract's cross-process case (contract.ts): opens the store its only
 * argument names (JSON: `{ context, module?, id, increments }`), prints `READY`, waits for a line
 * on stdin so that every child starts at once, then commits `increments` read-modify-write
 * increments of the number kept in the endpoint's `description`, reading again and retrying
 * whenever `update` answers false (another process won). It ends by printing
 * `DONE {"committed":…,"conflicts":…}` and exits 0; any error exits 1 with its stack.
 */
import { once } from 'node:events';
import type { EndpointStore, StoreContext } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import type { UpdaterArguments } from './contract.ts';

const args = JSON.parse(process.argv[2] ?? '') as UpdaterArguments;
const root = new URL('../../../../', import.meta.url);
const modulePath = args.module ?? `shared/webhooks/endpoint-stores/${args.context.options.adapter}.ts`;
const adapter = (await import(new URL(modulePath, root).href)) as {
  openStore(context: StoreContext): Promise<EndpointStore>;
};

const store = await adapter.openStore(args.context);
let conflicts = 0;
let committed = 0;
try {
  process.stdout.write('READY\n');
  process.stdin.resume();
  await once(process.stdin, 'data');
  while (committed < args.increments) {
    const current = await store.get(args.id);
    if (!current) throw new Error(`endpoint ${args.id} is gone`);
    const next = {
      ...current,
      description: String(Number(current.description) + 1),
      version: current.version + 1,
      updatedAt: new Date(),
    };
    if (await store.update(next, current.version)) committed++;
    else conflicts++;
  }
  process.stdout.write(`DONE ${JSON.stringify({ committed, conflicts })}\n`);
} finally {
  await store.close();
}
process.exit(0);
