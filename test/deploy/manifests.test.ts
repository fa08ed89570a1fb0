/**
 * The deploy files under deploy/ agree with the Procfile and with the
 * service's own behaviour: every process they run is a Procfile command, every probe path they
 * name answers 200 on a real web server, and every grace period covers the drain the process
 * really performs (derived from the config each manifest sets, not copied by hand).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { readProcfile } from '../../deploy/local/procfile.ts';
import { resolveConfig, type Config } from '../../shared/config/index.ts';
import { ROOT } from '../helpers/processes.ts';
import { serveWeb } from '../helpers/web.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const procfile = new Map(readProcfile(join(ROOT, 'Procfile')).map((type) => [type.name, type.command.split(/\s+/)]));
const argv = (name: string) => procfile.get(name) as string[];

/** The config a process gets from the environment a manifest gives it (production, a long secret). */
const configFrom = (env: Record<string, string>): Config =>
  resolveConfig({
    env: { NODE_ENV: 'production', APP_SECRET: 'x'.repeat(40), DATABASE_URL: 'postgres://db/app', ...env },
  }).config;
/** What a web process needs after SIGTERM at most: readiness delay, then the drain. */
const webDrainMs = (config: Config) => config.shutdown.delay + config.shutdown.drain;
/** What a worker needs after SIGTERM at most: attempts in flight up to webhooks.timeout, then 5 s to abort (worker/runner.ts). */
const workerDrainMs = (config: Config) => config.webhooks.timeout + 5_000;
const seconds = (text: string) => {
  const match = /^(\d+)(ms|s|m)$/.exec(text);
  assert.ok(match, `a duration like 20s: ${text}`);
  return Number(match[1]) * ({ ms: 0.001, s: 1, m: 60 } as Record<string, number>)[match[2]];
};

/** Probe paths every manifest names, checked against a real server at the end. */
const probePaths = new Set<string>();

interface Instruction {
  name: string;
  args: string;
}

function dockerfile(path: string): Instruction[] {
  return read(path)
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [name, ...rest] = line.split(/\s+/);
      return { name: name.toUpperCase(), args: rest.join(' ') };
    });
}

describe('deploy/docker/Dockerfile', () => {
  const steps = dockerfile('deploy/docker/Dockerfile');
  const stages = steps.filter((step) => step.name === 'FROM');
  const finalStage = steps.slice(steps.lastIndexOf(stages[stages.length - 1]));

  it('is multi-stage on Node 24', () => {
    assert.ok(stages.length >= 2, 'at least a dependencies stage and a runtime stage');
    for (const stage of stages) assert.match(stage.args, /^node:24[-.\w]*( AS \w+)?$/i);
  });

  it('installs production dependencies only, from the lockfile', () => {
    const install = steps.find((step) => step.name === 'RUN' && /npm ci/.test(step.args));
    assert.ok(install, 'an npm ci step');
    assert.match(install.args, /--omit=dev/);
    assert.ok(steps.some((step) => step.name === 'COPY' && /package-lock\.json/.test(step.args)));
  });

  it('runs as a user other than root in the final stage', () => {
    const user = finalStage.filter((step) => step.name === 'USER').at(-1);
    assert.ok(user, 'a USER instruction');
    assert.doesNotMatch(user.args, /^(root|0)(:|$)/);
  });

  it('copies every folder the Procfile commands run from, and .dockerignore keeps them', () => {
    const copied = finalStage.filter((step) => step.name === 'COPY').map((step) => step.args);
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    const folders = new Set([...procfile.values()].map((command) => command[1].split('/')[0]));
    folders.add('migrations');
    for (const folder of folders) {
      assert.ok(
        copied.some((args) => new RegExp(`(^|\\s)${folder}\\s`).test(args)),
        `${folder} is copied`,
      );
      assert.ok(!ignored.includes(folder), `${folder} is not in .dockerignore`);
    }
  });

  it('checks /livez and runs the Procfile web command by default', () => {
    const check = finalStage.find((step) => step.name === 'HEALTHCHECK');
    assert.ok(check, 'a HEALTHCHECK');
    assert.match(check.args, /\/livez/);
    probePaths.add('/livez');
    const command = finalStage.filter((step) => step.name === 'CMD').at(-1);
    assert.deepEqual(JSON.parse(command?.args ?? 'null'), argv('web'));
  });
});

describe('deploy/docker/compose.yaml', () => {
  const compose = parseYaml(read('deploy/docker/compose.yaml'), { merge: true }) as { services: Record<string, any> };
  const { services } = compose;

  it('runs PostgreSQL, the release, web and worker with the Procfile commands', () => {
    assert.ok(services.postgres, 'a PostgreSQL service');
    for (const name of ['release', 'web', 'worker']) assert.deepEqual(services[name].command, argv(name), name);
  });

  it('starts web and worker only after the release completed, and the release after PostgreSQL is healthy', () => {
    assert.equal(services.release.depends_on.postgres.condition, 'service_healthy');
    for (const name of ['web', 'worker'])
      assert.equal(services[name].depends_on.release.condition, 'service_completed_successfully');
  });

  it('gives web and worker a stop grace period that covers their drain', () => {
    const config = configFrom(services.web.environment);
    assert.ok(seconds(services.web.stop_grace_period) * 1000 > webDrainMs(config));
    assert.ok(seconds(services.worker.stop_grace_period) * 1000 > workerDrainMs(config));
  });

  it('runs in production and refuses to start without APP_SECRET', () => {
    assert.equal(services.web.environment.NODE_ENV, 'production');
    assert.match(services.web.environment.APP_SECRET, /^\$\{APP_SECRET:\?/);
  });
});

describe('deploy/heroku/app.json', () => {
  const app = JSON.parse(read('deploy/heroku/app.json'));

  it('has web and worker dynos, a PostgreSQL add-on and a generated APP_SECRET; the release phase is the Procfile line', () => {
    assert.deepEqual(Object.keys(app.formation).sort(), ['web', 'worker']);
    assert.ok(app.addons.some((addon: { plan: string }) => addon.plan.startsWith('heroku-postgresql')));
    assert.equal(app.env.APP_SECRET.generator, 'secret');
    assert.equal(app.env.NODE_ENV.value, 'production');
    assert.ok(procfile.has('release'), 'Heroku runs the Procfile release line at each deploy');
  });
});

describe('deploy/render/render.yaml', () => {
  const blueprint = parseYaml(read('deploy/render/render.yaml')) as {
    services: any[];
    databases: any[];
    envVarGroups: any[];
  };
  const web = blueprint.services.find((service) => service.type === 'web');
  const worker = blueprint.services.find((service) => service.type === 'worker');

  it('runs the Procfile commands, the release before each deploy', () => {
    assert.equal(web.startCommand, argv('web').join(' '));
    assert.equal(worker.startCommand, argv('worker').join(' '));
    assert.equal(web.preDeployCommand, argv('release').join(' '));
    assert.match(web.buildCommand, /npm ci --omit=dev/);
    probePaths.add(web.healthCheckPath);
  });

  it('shares one generated APP_SECRET between web and worker and points both at the database', () => {
    const group = blueprint.envVarGroups[0];
    assert.ok(
      group.envVars.some(
        (variable: { key: string; generateValue?: boolean }) => variable.key === 'APP_SECRET' && variable.generateValue,
      ),
    );
    for (const service of [web, worker]) {
      assert.ok(service.envVars.some((variable: { fromGroup?: string }) => variable.fromGroup === group.name));
      const database = service.envVars.find((variable: { key?: string }) => variable.key === 'DATABASE_URL');
      assert.equal(database.fromDatabase.name, blueprint.databases[0].name);
    }
  });
});

describe('deploy/fly/fly.toml', () => {
  const fly = parseToml(read('deploy/fly/fly.toml')) as Record<string, any>;

  it('runs the Procfile commands as process groups and the release command before each deploy', () => {
    assert.equal(fly.processes.web, argv('web').join(' '));
    assert.equal(fly.processes.worker, argv('worker').join(' '));
    assert.equal(fly.deploy.release_command, argv('release').join(' '));
    assert.deepEqual(fly.http_service.processes, ['web']);
  });

  it('checks readiness over HTTP and waits long enough for either process to drain', () => {
    for (const check of fly.http_service.checks) probePaths.add(check.path);
    const config = configFrom(fly.env);
    assert.equal(fly.kill_signal, 'SIGTERM');
    assert.ok(seconds(fly.kill_timeout) * 1000 > Math.max(webDrainMs(config), workerDrainMs(config)));
  });
});

describe('deploy/kubernetes', () => {
  const documents = ['web.yaml', 'worker.yaml', 'migrate-job.yaml'].flatMap((file) =>
    parseAllDocuments(read(`deploy/kubernetes/${file}`)).map((document) => document.toJS() as Record<string, any>),
  );
  const named = (kind: string, name: string) => {
    const found = documents.find((document) => document.kind === kind && document.metadata.name === name);
    assert.ok(found, `${kind} ${name}`);
    return found;
  };
  const envOf = (container: any) =>
    Object.fromEntries(
      (container.env ?? []).map((variable: { name: string; value: string }) => [variable.name, variable.value]),
    );
  const web = named('Deployment', 'app-webhooks-web');
  const webPod = web.spec.template.spec;
  const webContainer = webPod.containers[0];

  it('every workload runs a Procfile command from the Secret, with resource requests, as a non-root user', () => {
    const workloads: [any, string][] = [
      [webPod, 'web'],
      [named('Deployment', 'app-webhooks-worker').spec.template.spec, 'worker'],
      [named('Job', 'app-webhooks-migrate').spec.template.spec, 'release'],
    ];
    for (const [pod, type] of workloads) {
      const container = pod.containers[0];
      assert.deepEqual(container.command, argv(type), type);
      assert.ok(container.resources.requests.cpu && container.resources.requests.memory, `${type} requests resources`);
      assert.equal(pod.securityContext.runAsNonRoot, true);
      assert.ok(container.envFrom.some((source: any) => source.secretRef?.name === 'app-webhooks'));
      assert.equal(envOf(container).NODE_ENV, 'production');
    }
  });

  it('the web Deployment probes /livez and /readyz, and its Service targets the container port', () => {
    assert.equal(webContainer.livenessProbe.httpGet.path, '/livez');
    assert.equal(webContainer.readinessProbe.httpGet.path, '/readyz');
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
      probePaths.add(webContainer[probe].httpGet.path);
    const service = named('Service', 'app-webhooks-web');
    assert.deepEqual(service.spec.selector, web.spec.selector.matchLabels);
    assert.equal(service.spec.ports[0].targetPort, webContainer.ports[0].name);
  });

  it('the web grace period covers preStop, shutdown.delay and shutdown.drain', () => {
    const preStop = webContainer.lifecycle.preStop.exec.command;
    assert.equal(preStop[0], 'sleep');
    const config = configFrom(envOf(webContainer));
    const needed = Number(preStop[1]) * 1000 + webDrainMs(config);
    assert.ok(
      webPod.terminationGracePeriodSeconds * 1000 > needed,
      `${webPod.terminationGracePeriodSeconds}s > ${needed}ms`,
    );
  });

  it('the worker grace period covers the drain of the deliveries in flight', () => {
    const pod = named('Deployment', 'app-webhooks-worker').spec.template.spec;
    const config = configFrom(envOf(pod.containers[0]));
    assert.ok(pod.terminationGracePeriodSeconds * 1000 > workerDrainMs(config));
  });
});

describe('probe paths named by the deploy files', () => {
  it('each answers 200 on a running web process', async () => {
    const { base } = await serveWeb();
    assert.ok(probePaths.size >= 2, `collected ${[...probePaths].join(', ')}`);
    for (const path of probePaths) {
      const response = await fetch(`${base}${path}`);
      assert.equal(response.status, 200, path);
      await response.body?.cancel();
    }
  });
});
