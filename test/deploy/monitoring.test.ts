// deploy/monitoring/: the alerting rules pass `promtool check rules` and their unit tests
// (`promtool test rules`, Debian's prometheus package, which .ci/run installs); the dashboard is a Grafana
// dashboard on a ${DS_PROMETHEUS} input whose queries are valid PromQL; and every metric the rules, the
// dashboard and the README name, with the labels and closed-set values they select, is exposed by a running
// gateway (REDIS_URL set, so legacy_gateway_redis_up is too) after a read and a payment against a recording
// fake v1. The dashboard has a panel for every legacy_gateway_* metric it exposes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { json, startRecordingUpstream, v1List, type RecordingUpstream } from '../helpers/recording-upstream.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { ROOT } from './compose-files.js';

const MONITORING = path.join(ROOT, 'deploy/monitoring');
const PROMTOOL = existsSync('/usr/bin/promtool') ? '/usr/bin/promtool' : 'promtool';
const read = (file: string): string => readFileSync(path.join(MONITORING, file), 'utf8');
const scratch = mkdtempSync(path.join(tmpdir(), 'lgw-monitoring-'));

interface Target {
  expr: string;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Array<Target & { datasource?: { uid: string } }>;
}
interface Dashboard {
  __inputs: Array<{ name: string; type: string; pluginId: string }>;
  schemaVersion: number;
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; query: { query: string } | string; datasource: { uid: string } }> };
}

const dashboard = JSON.parse(read('dashboard.json')) as Dashboard;
const alertRules = (parse(read('alerts.yaml')) as { groups: Array<{ rules: Array<{ alert: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }> }> }).groups.flatMap((g) => g.rules);
const dashboardExprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
const variableQueries = dashboard.templating.list.map((v) => (typeof v.query === 'string' ? v.query : v.query.query));

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync(PROMTOOL, args, { cwd: ROOT, encoding: 'utf8' });
  if (run.error) throw new Error(`${PROMTOOL} could not run (.ci/run installs Debian's prometheus package): ${run.error.message}`);
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The metric names a text names (`_bucket`, `_count`, `_sum` taken off). */
function metricNames(text: string): Set<string> {
  return new Set([...text.matchAll(/\b(?:legacy_gateway|process|nodejs)_[a-z0-9_]+/g)].map(([name]) => name.replace(/_(bucket|count|sum)$/, '')));
}

/** Each `metric{matchers}` selector of a PromQL expression: its metric (suffix taken off) and its matchers. */
function selectors(expr: string): Array<{ metric: string; matchers: Array<{ label: string; op: string; value: string }> }> {
  return [...expr.matchAll(/\b([a-z_][a-z0-9_]*)\{([^}]*)\}/g)].map(([, metric = '', body = '']) => ({
    metric: metric.replace(/_(bucket|count|sum)$/, ''),
    matchers: [...body.matchAll(/([a-z_]+)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)].map(([, label = '', op = '', value = '']) => ({ label, op, value })),
  }));
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('alerts.yaml', () => {
  it('passes promtool check rules', () => {
    const run = promtool('check', 'rules', 'deploy/monitoring/alerts.yaml');
    expect(run.output).toContain('SUCCESS');
    expect(run.status, run.output).toBe(0);
  });

  it("passes its unit tests (promtool test rules), which fire and silence every alert", () => {
    const run = promtool('test', 'rules', 'deploy/monitoring/alerts.test.yaml');
    expect(run.status, run.output).toBe(0);
    const tests = (parse(read('alerts.test.yaml')) as { tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }> }).tests.flatMap((t) => t.alert_rule_test);
    for (const rule of alertRules) {
      const cases = tests.filter((t) => t.alertname === rule.alert);
      expect(cases.some((t) => t.exp_alerts.length > 0), `${rule.alert} fires in a test`).toBe(true);
      expect(cases.some((t) => t.exp_alerts.length === 0), `${rule.alert} stays silent in a test`).toBe(true);
    }
  });

  it('gives every alert a for:, a severity, a summary and a description', () => {
    expect(alertRules.length).toBeGreaterThanOrEqual(10);
    for (const rule of alertRules) {
      expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning', 'info'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect((rule.annotations?.description ?? '').length, rule.alert).toBeGreaterThan(80);
    }
  });
});

describe('dashboard.json', () => {
  it('is a Grafana dashboard on a ${DS_PROMETHEUS} input, every panel and variable on it', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.uid).toBe('legacy-gateway');
    expect(dashboard.__inputs).toEqual([expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' })]);
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
      expect(panel.datasource?.uid, panel.title).toBe('${DS_PROMETHEUS}');
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.datasource?.uid, panel.title).toBe('${DS_PROMETHEUS}');
    }
    for (const variable of dashboard.templating.list) expect(variable.datasource.uid, variable.name).toBe('${DS_PROMETHEUS}');
  });

  it('queries in valid PromQL (promtool checks them as recording rules)', () => {
    const rules = dashboardExprs.map((expr, i) => ({
      record: `dashboard:panel_query_${i}`,
      expr: expr.replaceAll('$__rate_interval', '5m').replace(/\$(job|instance|method)\b/g, '.*'),
    }));
    const file = path.join(scratch, 'dashboard-queries.yaml');
    writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
    const run = promtool('check', 'rules', file);
    expect(run.status, run.output).toBe(0);
  });

  it('shows by legacy method every metric that has the label, filtered by the method variable', () => {
    for (const expr of dashboardExprs) {
      for (const { metric, matchers } of selectors(expr)) {
        if (metric !== 'legacy_gateway_requests_total' && metric !== 'legacy_gateway_request_duration_seconds') continue;
        const method = matchers.find((m) => m.label === 'method');
        expect(method, expr).toBeDefined();
        if (method?.value === '$method') expect(expr, expr).toMatch(/by \(method\b/);
      }
    }
    expect(dashboardExprs.filter((e) => e.includes('method=~"$method"')).length).toBeGreaterThanOrEqual(4);
  });
});

describe('the metrics deploy/monitoring names', () => {
  let upstream: RecordingUpstream;
  let redis: TestRedis;
  let gateway: TestGateway;
  let scraped: string;

  beforeAll(async () => {
    upstream = await startRecordingUpstream((req, res) => {
      if (req.method === 'POST' && req.url === '/api/v1/payments') return json(res, 201, { object: 'payment', id: 9 });
      if (/^\/api\/v1\/clients\/\d+$/.test(req.url)) return json(res, 200, { object: 'client', id: 1 });
      if (req.url === '/api/v1') return json(res, 200, { object: 'api' });
      return json(res, 200, v1List([{ object: 'client', id: 1, first_name: 'Ann', last_name: 'Lee' }]));
    });
    redis = await startTestRedis();
    // A brownout open now over the team listing, so that its refusals' counter has a sample to scrape.
    const brownouts = path.join(scratch, 'brownouts.yaml');
    const hour = 3600_000;
    writeFileSync(brownouts, `brownouts:\n  - name: monitoring\n    start: ${new Date(Date.now() - hour).toISOString()}\n    end: ${new Date(Date.now() + hour).toISOString()}\n    all: true\n    methods: [meetourteam]\n`);
    gateway = await startTestGateway({
      BROWNOUTS_FILE: brownouts,
      UPSTREAM_URL: upstream.url,
      METRICS_PORT: '0',
      REDIS_URL: redis.url,
      GATEWAY_SECRET: 'monitoring-test-gateway-secret-0123456789',
      LOG_LEVEL: 'warn',
    });
    const connected = gateway.redis!;
    if (!connected.isUp()) await new Promise<void>((resolve) => connected.onStateChange((up) => up && resolve()));
    expect((await fetch(`${gateway.url}/api/clients/0/1`)).status).toBe(200);
    const paid = await fetch(`${gateway.url}/api/payment`, { method: 'POST', body: new URLSearchParams({ client_id: '1', revenue_amount: '1.00', send_email: '0' }) });
    expect(await paid.text()).toContain('payment added');
    expect((await fetch(`${gateway.url}/api/meetourteam/0/1`)).status).toBe(410);
    await (await fetch(`${gateway.url}/readyz`)).text();
    scraped = await (await fetch(`${gateway.metricsUrl!}/metrics`)).text();
  });
  afterAll(async () => {
    await gateway?.close();
    await redis?.close();
    await upstream?.close();
  });

  /** Each sample's metric (suffix taken off) -> its label names -> the values seen. */
  const exposed = () => {
    const found = new Map<string, Map<string, Set<string>>>();
    for (const line of scraped.split('\n')) {
      const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
      if (!sample) continue;
      const metric = (sample[1] ?? '').replace(/_(bucket|count|sum)$/, '');
      const labels = found.get(metric) ?? new Map<string, Set<string>>();
      for (const [, name = '', value = ''] of (sample[2] ?? '').matchAll(/([a-zA-Z_]+)="([^"]*)"/g)) labels.set(name, (labels.get(name) ?? new Set()).add(value));
      found.set(metric, labels);
    }
    return found;
  };

  it('are exposed by a running gateway, each of them', () => {
    const metrics = exposed();
    const named = new Set([...metricNames(read('alerts.yaml')), ...metricNames(read('dashboard.json')), ...metricNames(read('README.md'))]);
    expect(named).toContain('legacy_gateway_redis_up');
    expect(named).toContain('process_resident_memory_bytes');
    for (const name of named) expect(metrics.has(name), `${name} is exposed`).toBe(true);
  });

  it('with the labels the queries select, and the closed-set values they name', () => {
    const metrics = exposed();
    const exprs = [...alertRules.map((r) => r.expr), ...dashboardExprs, ...variableQueries];
    for (const expr of exprs) {
      for (const { metric, matchers } of selectors(expr)) {
        const labels = metrics.get(metric);
        expect(labels, `${metric} in ${expr}`).toBeDefined();
        for (const { label, value } of matchers) {
          if (label === 'job' || label === 'instance') continue; // set by Prometheus, not the gateway
          expect(labels?.has(label), `${metric} has label ${label}`).toBe(true);
          // Numeric statuses and variables are not a closed set; alternatives of plain words are.
          if (value.includes('$') || label === 'status' || !/^[a-z0-9_]+(\|[a-z0-9_]+)*$/.test(value)) continue;
          for (const alternative of value.split('|')) expect([...(labels?.get(label) ?? [])], `${metric}{${label}="${alternative}"}`).toContain(alternative);
        }
      }
    }
  });

  it('has a dashboard panel for every legacy_gateway_ metric the gateway exposes', () => {
    const used = metricNames(dashboardExprs.join('\n'));
    const families = [...scraped.matchAll(/^# TYPE (legacy_gateway_[a-z0-9_]+) /gm)].map(([, name]) => name ?? '');
    expect(families.length).toBeGreaterThanOrEqual(10);
    for (const family of families) expect(used, `a panel shows ${family}`).toContain(family);
  });
});
