/**
 * Traces off cost nothing to load: a web or worker process started without any telemetry setting
 * loads neither the OpenTelemetry SDK nor an exporter (test/helpers/module-loads.ts records every
 * module a process loads). The same web process pointed at a collector loads them, so the check
 * can fail.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { startWebProcess, startWorkerProcess, type DeployedProcess } from '../../helpers/deployment.ts';
import { startOtlpReceiver } from '../../helpers/otlp-receiver.ts';
import { resolveConfig } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { startTelemetry, TELEMETRY_OFF } from '../../../shared/telemetry/start.ts';

/** What only tracing may load: the SDK, the exporters, and the module of this project that starts them. */
const TRACING_MODULES = [
  '/node_modules/@opentelemetry/sdk-node/',
  '/node_modules/@opentelemetry/sdk-trace/',
  '/node_modules/@opentelemetry/exporter-trace-otlp-',
  '/shared/telemetry/sdk.ts',
];

const folder = mkdtempSync(join(tmpdir(), 'app-telemetry-loads-'));
after(() => rmSync(folder, { recursive: true, force: true }));
let db: TestDatabase;
let runs = 0;

/** Starts a process with `start`, recording its module loads, stops it, and answers the tracing modules it loaded. */
async function tracingModulesOf(
  start: (env: Record<string, string>) => Promise<DeployedProcess>,
  env: Record<string, string> = {},
) {
  const file = join(folder, `loads-${++runs}`);
  const started = await start({
    DATABASE_URL: db.url,
    NODE_OPTIONS: '--import ./test/helpers/module-loads.ts',
    MODULE_LOADS_FILE: file,
    ...env,
  });
  await started.stop();
  const exit = await started.spawned.exited;
  assert.equal(
    existsSync(file),
    true,
    `no module list written; exit ${JSON.stringify(exit)}: ${started.spawned.output()}`,
  );
  const loaded = readFileSync(file, 'utf8').split('\n');
  return loaded.filter((url) => TRACING_MODULES.some((module) => url.includes(module)));
}

describe('telemetry off', () => {
  before(async () => {
    db = await createTestDatabase();
  });

  it('startTelemetry answers the no-op handle and loads nothing when nothing is configured', async () => {
    const config = resolveConfig({ env: { NODE_ENV: 'test' } }).config;
    const telemetry = await startTelemetry({ config, log: createLogger(config, { name: 'test' }) }, 'test');
    assert.equal(telemetry, TELEMETRY_OFF);
    assert.equal(telemetry.enabled, false);
  });

  it('a web process without telemetry settings loads no SDK and no exporter', async () => {
    assert.deepEqual(await tracingModulesOf(startWebProcess), []);
  });

  it('a worker process without telemetry settings loads no SDK and no exporter', async () => {
    assert.deepEqual(await tracingModulesOf(startWorkerProcess), []);
  });

  it('the same web process pointed at a collector loads them', async () => {
    const otlp = await startOtlpReceiver();
    const loaded = await tracingModulesOf(startWebProcess, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint });
    assert.ok(
      loaded.some((url) => url.includes('/node_modules/@opentelemetry/sdk-node/')),
      'the SDK is loaded',
    );
    assert.ok(
      loaded.some((url) => url.includes('/exporter-trace-otlp-proto/')),
      'the protobuf exporter is loaded',
    );
  });
});
