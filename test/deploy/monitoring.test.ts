/**
 * The alerting rules (deploy/prometheus/alerts.yaml) and the dashboard (deploy/grafana/dashboard.json)
 * that ship for deployers watch only what the service really exports: every expression parses with
 * the Prometheus project's own PromQL grammar, and every metric, label matcher and grouping label
 * it names is checked against what a real web process and a real worker answer on GET /metrics
 * after real traffic (deliveries done, retried and dead, a 410 that disables its endpoint, a run of
 * the hourly prune, evictions of the shared store, a database outage answered 503). A metric or
 * label renamed in the code fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parser } from '@prometheus-io/lezer-promql';
import type { SyntaxNode } from '@lezer/common';
import { parse as parseYaml } from 'yaml';
import { createWebServer } from '../../api/server.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { createToken } from '../../shared/tokens/tokens.ts';
import { serveWorker, type ServedWorker } from '../../worker/run.ts';
import { PRUNE_TASK } from '../../shared/webhooks/retention.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { surviveDriverCrashAsProcessesDo } from '../helpers/driver-crash.ts';
import { eventually } from '../helpers/poll.ts';
import { parseMetrics, sampleValue } from '../helpers/prometheus.ts';
import { ROOT } from '../helpers/processes.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { startReceiver, type Receiver } from '../worker/delivery/receiver.ts';
import { harness } from '../worker/helpers.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const SCRAPE_TOKEN = 'monitoring-scrape-token';
/** Labels Prometheus itself attaches to every scraped series. */
const TARGET_LABELS = new Set(['instance', 'job']);
const SEVERITIES = new Set(['critical', 'warning', 'info']);
/** The data source every panel names, the one the import asks for (`__inputs`); joined so that the linter does not take it for a template string. */
const DATA_SOURCE = ['$', '{DS_PROMETHEUS}'].join('');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: { severity?: string };
  annotations?: { summary?: string; description?: string };
}
const rules: Rule[] = (
  parseYaml(read('deploy/prometheus/alerts.yaml')) as { groups: { rules: Rule[] }[] }
).groups.flatMap((group) => group.rules);
interface Panel {
  id: number;
  title: string;
  type: string;
  datasource?: { uid?: string };
  targets?: { expr?: string; datasource?: { uid?: string } }[];
}
const dashboard = JSON.parse(read('deploy/grafana/dashboard.json')) as {
  schemaVersion: number;
  __inputs: { name: string; pluginId: string }[];
  panels: Panel[];
};
/** A panel's expression with Grafana's interval variables given a value, as Grafana sends it. */
const asSent = (expr: string) => expr.replaceAll('$__rate_interval', '1m').replaceAll('$__interval', '1m');

/** What the processes export: each sample name (`_bucket`, `_total` included) with its labels' values. */
type Exported = Map<string, Map<string, Set<string>>>;

function samplesOf(text: string, into: Exported): void {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!match) continue;
    const labels = into.get(match[1]) ?? new Map<string, Set<string>>();
    into.set(match[1], labels);
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      const values = labels.get(pair[1]) ?? new Set<string>();
      values.add(pair[2]);
      labels.set(pair[1], values);
    }
  }
}

interface Matcher {
  label: string;
  op: string;
  value: string;
}
interface Selector {
  metric: string;
  matchers: Matcher[];
}
/** The syntax errors of `expr`, its selectors, and the labels of its `by`/`without`/`on`/`ignoring`/`group_*`. */
function parsePromQL(expr: string): { errors: number[]; selectors: Selector[]; grouping: string[] } {
  const tree = parser.parse(expr);
  const errors: number[] = [];
  const selectors: Selector[] = [];
  const grouping: string[] = [];
  const text = (node: SyntaxNode | null) => (node ? expr.slice(node.from, node.to) : '');
  tree.iterate({
    enter: (ref) => {
      if (ref.type.isError) errors.push(ref.from);
      if (ref.name === 'VectorSelector') {
        const node = ref.node;
        const matchers = (node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []).map((matcher) => ({
          label: text(matcher.getChild('LabelName')),
          op: text(matcher.getChild('MatchOp')),
          value: JSON.parse(text(matcher.getChild('StringLiteral'))) as string,
        }));
        selectors.push({ metric: text(node.getChild('Identifier')), matchers });
      }
      if (ref.name === 'GroupingLabels')
        for (const label of ref.node.getChildren('LabelName')) grouping.push(text(label));
    },
  });
  return { errors, selectors, grouping };
}

/** What is wrong with `expr` against what the processes export (an empty list: nothing). */
function problemsOf(expr: string, exported: Exported): string[] {
  const { errors, selectors, grouping } = parsePromQL(expr);
  if (errors.length > 0) return [`syntax error at ${errors.join(', ')}`];
  const problems: string[] = [];
  if (selectors.length === 0) problems.push('selects no metric');
  for (const { metric, matchers } of selectors) {
    const labels = exported.get(metric);
    if (!labels) {
      problems.push(`${metric}: not exported`);
      continue;
    }
    for (const { label, op, value } of matchers) {
      const values = labels.get(label);
      if (!values) problems.push(`${metric}: no label ${label}`);
      else if (op === '=' && !values.has(value)) problems.push(`${metric}{${label}="${value}"}: never seen`);
      else if (op === '=~' && ![...values].some((seen) => new RegExp(`^(?:${value})$`).test(seen)))
        problems.push(`${metric}{${label}=~"${value}"}: matches nothing seen`);
      else if (op === '!~') new RegExp(value); // a regular expression Prometheus would take
    }
  }
  const selected = new Set(selectors.flatMap(({ metric }) => [...(exported.get(metric)?.keys() ?? [])]));
  for (const label of grouping)
    if (!TARGET_LABELS.has(label) && !selected.has(label))
      problems.push(`groups by ${label}, which no metric it selects has`);
  return problems;
}

/** The metrics of a real web process and a real worker after real traffic, scraped over HTTP. */
const exported: Exported = new Map();
const cleanups: (() => Promise<unknown>)[] = [];

/** Runs the processes and their traffic, and scrapes them into `exported`. */
async function scrapeAfterTraffic(): Promise<void> {
  const db = await createTestDatabase();
  const proxy = await startTcpProxy(db.url);
  cleanups.push(() => proxy.close());
  const receivers: Receiver[] = [];
  for (const status of [200, 500, 410])
    receivers.push(
      await startReceiver((_req, res) => {
        res.statusCode = status;
        res.end();
      }),
    );
  cleanups.push(() => Promise.all(receivers.map((receiver) => receiver.close())));

  // the web process reaches its database through a proxy, so that an outage can be made
  const webConfig = db.configWith({
    databaseUrl: proxy.url,
    metrics: { token: SCRAPE_TOKEN },
    shared: { backend: 'none', maxMemoryBytes: '16kb' },
    rateLimit: { auth: { max: 1 } },
  });
  const webLog = createLogger(webConfig, { name: 'monitoring-web' });
  surviveDriverCrashAsProcessesDo(webLog);
  const web = createWebServer({ config: webConfig, log: webLog });
  cleanups.push(() => web.shutdown('test'));
  const base = `http://127.0.0.1:${(await web.start(0)).port}`;
  const { token } = await createToken({ sql: db.sql, log: db.log }, { name: 'monitoring', role: 'admin' });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });

  for (const receiver of receivers) {
    const created = await post('/api/v1/webhooks', { url: `${receiver.origin}/in`, events: ['order.created'] });
    assert.equal(created.status, 201, await created.text());
  }
  assert.equal((await post('/api/v1/events', { type: 'order.created', data: { n: 1 } })).status, 202);
  // keyed emits nobody subscribes to, until the shared store's bound evicts their records
  await eventually(
    async () => {
      const answer = await post(
        '/api/v1/events',
        { type: 'audit.noted', data: { note: 'x'.repeat(200) } },
        { 'idempotency-key': `monitoring-${Math.random()}` },
      );
      assert.equal(answer.status, 202);
      const scrape = await web.metrics.registry.getSingleMetricAsString('app_shared_memory_evictions_total');
      return /kind="idem"/.test(scrape);
    },
    30_000,
    'an eviction of the shared store',
    0,
  );

  // the authentication limiter refuses a second sign-in within its window
  for (const expected of [false, true]) {
    const answer = await fetch(`${base}/login`, { method: 'POST' });
    assert.equal(answer.status === 429, expected, `sign-in answered ${answer.status}`);
  }

  const workerConfig = harness(db, {
    worker: { metricsPort: 0 },
    metrics: { token: SCRAPE_TOKEN },
    webhooks: { maxAttempts: 2 },
  }).config;
  const worker: ServedWorker = await serveWorker({
    config: workerConfig,
    log: createLogger(workerConfig, { name: 'monitoring-worker' }),
  });
  cleanups.push(() => worker.handle.stop());
  // every outcome counted (a 500 retried once, then dead; a 410 gone), not only recorded
  await eventually(
    async () => {
      const families = parseMetrics(await worker.handle.metrics.registry.metrics());
      return ['done', 'retry', 'dead', 'gone'].every(
        (outcome) => sampleValue(families, 'app_deliveries_total', { outcome }) === 1,
      );
    },
    20_000,
    'the attempts counted: done, retry, dead, gone',
  );

  // the hourly prune run once, to its end; the 410 disabled its endpoint
  await db.sql`select graphile_worker.add_job(${PRUNE_TASK}, '{}'::json, max_attempts := 1)`;
  await eventually(
    async () => {
      const families = parseMetrics(await worker.handle.metrics.registry.metrics());
      return (
        // (the hourly cron may have run one too)
        (sampleValue(families, 'app_prune_runs_total', { outcome: 'done' }) ?? 0) >= 1 &&
        sampleValue(families, 'app_endpoints_disabled_total', { reason: 'gone' }) === 1
      );
    },
    20_000,
    'a prune run to its end and the endpoint of the 410 disabled, counted',
  );

  // the database away: the API answers 503 APP_DATABASE_UNAVAILABLE and readiness 503
  await proxy.cut();
  const refused = await fetch(`${base}/api/v1/webhooks`, { headers });
  assert.equal(refused.status, 503);
  assert.equal(((await refused.json()) as { code: string }).code, 'APP_DATABASE_UNAVAILABLE');
  assert.equal((await fetch(`${base}/readyz`)).status, 503);
  await proxy.restore();
  await eventually(async () => (await fetch(`${base}/readyz`)).status === 200, 10_000, 'readiness back');

  const scrape = async (url: string) => {
    const answer = await fetch(url, { headers: { authorization: `Bearer ${SCRAPE_TOKEN}` } });
    assert.equal(answer.status, 200);
    return answer.text();
  };
  // the worker's queue gauges are read at most every 5 s: alive once a read follows its first heartbeat
  const workerText = await eventually(
    async () => {
      const text = await scrape(`http://127.0.0.1:${worker.metricsPort}/metrics`);
      return /^app_workers_alive\{process="worker"\} 1$/m.test(text) ? text : undefined;
    },
    15_000,
    'the worker to see itself alive',
    250,
  );
  samplesOf(await scrape(`${base}/metrics`), exported);
  samplesOf(workerText, exported);
}

describe('what deployers load into their monitoring', () => {
  before(scrapeAfterTraffic);
  // before the test database is dropped (its helper's hook runs after this suite's)
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  describe('deploy/prometheus/alerts.yaml', () => {
    it('holds alerting rules, each with a unique name, a for, a severity of critical, warning or info, a summary and a description', () => {
      assert.ok(rules.length >= 10, `${rules.length} rules`);
      assert.equal(new Set(rules.map((rule) => rule.alert)).size, rules.length, 'unique names');
      for (const rule of rules) {
        assert.match(rule.alert, /^[A-Z][A-Za-z0-9]+$/);
        assert.match(rule.for ?? '', /^\d+[smh]$/, `${rule.alert}: for`);
        assert.ok(SEVERITIES.has(rule.labels?.severity ?? ''), `${rule.alert}: severity ${rule.labels?.severity}`);
        assert.ok((rule.annotations?.summary ?? '').length > 10, `${rule.alert}: summary`);
        assert.ok((rule.annotations?.description ?? '').length > 40, `${rule.alert}: description`);
      }
    });

    it('parses every expression with the PromQL grammar, and uses only metrics, labels and label values the processes export', () => {
      const wrong = rules.flatMap((rule) =>
        problemsOf(rule.expr, exported).map((problem) => `${rule.alert}: ${problem}`),
      );
      assert.deepEqual(wrong, []);
    });

    it('has a runbook line for each alert in docs/operations.md', () => {
      const section = read('docs/operations.md').split('### Alerts and dashboard')[1] ?? '';
      assert.deepEqual(
        rules.map((rule) => rule.alert).filter((name) => !section.includes(`\`${name}\``)),
        [],
      );
    });
  });

  describe('deploy/grafana/dashboard.json', () => {
    it('is an importable dashboard asking for its Prometheus data source, with 8 to 16 panels all using it', () => {
      assert.ok(dashboard.schemaVersion >= 36, `schemaVersion ${dashboard.schemaVersion}`);
      assert.deepEqual(
        dashboard.__inputs.map((input) => [input.name, input.pluginId]),
        [['DS_PROMETHEUS', 'prometheus']],
      );
      assert.ok(dashboard.panels.length >= 8 && dashboard.panels.length <= 16, `${dashboard.panels.length} panels`);
      assert.equal(new Set(dashboard.panels.map((panel) => panel.id)).size, dashboard.panels.length, 'unique ids');
      for (const panel of dashboard.panels) {
        assert.equal(panel.datasource?.uid, DATA_SOURCE, panel.title);
        assert.ok((panel.targets ?? []).length > 0, `${panel.title}: a query`);
        for (const target of panel.targets ?? []) assert.equal(target.datasource?.uid, DATA_SOURCE, panel.title);
      }
    });

    it("parses every panel's query with the PromQL grammar, and uses only metrics, labels and label values the processes export", () => {
      const wrong = dashboard.panels.flatMap((panel) =>
        (panel.targets ?? []).flatMap((target) =>
          problemsOf(asSent(target.expr ?? ''), exported).map((problem) => `${panel.title}: ${problem}`),
        ),
      );
      assert.deepEqual(wrong, []);
    });
  });

  describe('the checks themselves', () => {
    it('find a syntax error, a metric or label that is not exported, and a label value never seen', () => {
      assert.deepEqual(problemsOf('sum(rate(app_deliveries_total[5m])', exported).length, 1);
      assert.deepEqual(problemsOf('app_deliveries_renamed_total', exported), [
        'app_deliveries_renamed_total: not exported',
      ]);
      assert.deepEqual(problemsOf('app_deliveries_total{result="done"}', exported), [
        'app_deliveries_total: no label result',
      ]);
      assert.deepEqual(problemsOf('app_deliveries_total{outcome="delivered"}', exported), [
        'app_deliveries_total{outcome="delivered"}: never seen',
      ]);
      assert.deepEqual(problemsOf('sum by (tenant) (app_deliveries_total)', exported), [
        'groups by tenant, which no metric it selects has',
      ]);
      assert.deepEqual(
        problemsOf('sum by (instance, outcome) (rate(app_deliveries_total{outcome=~"dead|gone"}[5m]))', exported),
        [],
      );
    });
  });
});
