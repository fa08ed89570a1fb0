/**
 * The service as a deployer runs it: the Procfile's processes (`node api/main.ts`,
 * `node worker/main.ts`) started as real processes, configured by their environment alone
 * (`DATABASE_URL`, `APP_STORES`, `APP_WEBHOOKS__STORE`, …), so what a test sees is the real
 * configuration, the real wiring of the stores and the real boot (tables installed at boot, as
 * outside production). The web process listens on a port of its choosing on 127.0.0.1; the test
 * reads it from the process's log.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { runAppInProcess } from './cli.ts';
import { spawnNode, type Spawned } from './processes.ts';

/** Settings of every process started here: test mode, receivers on the loopback allowed, a fast worker. */
const BASE_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'info',
  APP_HOST: '127.0.0.1',
  APP_WEBHOOKS__ALLOW_HTTP: 'true',
  APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
  APP_WEBHOOKS__TIMEOUT: '2s',
  APP_WORKER__POLL_INTERVAL: '100ms',
};

export interface DeployedProcess {
  spawned: Spawned;
  /** SIGTERM (a graceful drain), then SIGKILL if it has not exited within 15 seconds. */
  stop(): Promise<void>;
}

export interface DeployedWeb extends DeployedProcess {
  /** `http://127.0.0.1:<port>` */
  base: string;
}

const running: DeployedProcess[] = [];

/**
 * Stops every process started here, last started first. Call it in the file's `describe` with
 * `after(stopDeployment)`: the test databases are dropped by file-level hooks that run before
 * any later file-level hook, and a process should be gone before its databases are.
 */
export async function stopDeployment(): Promise<void> {
  for (const process of running.splice(0).reverse()) await process.stop();
}
after(stopDeployment);

function track(spawned: Spawned): DeployedProcess {
  const deployed: DeployedProcess = {
    spawned,
    async stop() {
      if (spawned.child.exitCode !== null || spawned.child.signalCode !== null) return;
      spawned.child.kill('SIGTERM');
      try {
        await spawned.exitedWithin(15_000);
      } catch {
        spawned.child.kill('SIGKILL');
        await spawned.exited;
      }
    },
  };
  running.push(deployed);
  return deployed;
}

/** Starts `node api/main.ts` with `env` over the base settings; resolves once it listens and has booted. */
export async function startWebProcess(env: Record<string, string>): Promise<DeployedWeb> {
  const spawned = spawnNode('api/main.ts', { ...BASE_ENV, PORT: '0', ...env });
  const deployed = track(spawned);
  const [, port] = await spawned.waitFor(/"port":(\d+)[^\n]*"msg":"web process listening"/, 30_000);
  await spawned.waitFor(/"msg":"web process ready"/, 30_000);
  return { ...deployed, base: `http://127.0.0.1:${port}` };
}

/** Starts `node worker/main.ts` with `env` over the base settings; resolves once it claims jobs. */
export async function startWorkerProcess(env: Record<string, string>): Promise<DeployedProcess> {
  const spawned = spawnNode('worker/main.ts', { ...BASE_ENV, ...env });
  const deployed = track(spawned);
  await spawned.waitFor(/"msg":"worker started"/, 30_000);
  return deployed;
}

/** An admin API token for the deployment on `databaseUrl`, made as an operator does (`app tokens:create`); its text. */
export async function operatorToken(databaseUrl: string, appSecret: string): Promise<string> {
  const run = await runAppInProcess(['tokens:create', '--name', 'operator', '--role', 'admin', '--json'], {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    APP_SECRET: appSecret,
  });
  assert.equal(run.code, 0, run.stderr);
  return (JSON.parse(run.stdout) as { token: string }).token;
}
