import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * The alert rules (deploy/prometheus/alerts.yaml) against what the services export and
 * what the operations guide explains: an alert on a series nobody exports never fires,
 * and an alert nobody explains wakes someone up for nothing.
 */
const ROOT = path.resolve(__dirname, '../../..');
const rules = parse(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yaml'), 'utf8')) as {
  groups: Array<{ name: string; rules: Array<{ alert: string; expr: string; for: string; labels: { severity: string }; annotations: { summary: string } }> }>;
};
const alerts = rules.groups.flatMap((g) => g.rules);
const guide = fs.readFileSync(path.join(ROOT, 'deploy/OPERATIONS.md'), 'utf8');
/** Where the series are defined: the kit's and the events' metrics and the services' own gauges. */
const sources = ['libs/kit/src/metrics.ts', 'libs/events/src/metrics.ts', ...['access', 'issues', 'statistics', 'gateway', 'agent', 'notifications'].map((s) => `services/${s}/src/app.ts`)]
  .map((file) => fs.readFileSync(path.join(ROOT, file), 'utf8'))
  .join('\n');

test('every rule has an expression, a duration, a severity and a summary', () => {
  expect(alerts.length).toBeGreaterThanOrEqual(8);
  for (const rule of alerts) {
    expect([rule.alert, typeof rule.expr, /^\d+[smh]$/.test(rule.for), ['page', 'ticket'].includes(rule.labels?.severity), typeof rule.annotations?.summary]).toEqual([
      rule.alert,
      'string',
      true,
      true,
      'string',
    ]);
  }
});

test('every Tracker series an alert uses is exported by a service', () => {
  for (const rule of alerts) {
    const series = [...rule.expr.matchAll(/\b(tracker_[a-z_]+|http_[a-z_]+)\b/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ''));
    for (const name of series) expect([rule.alert, name, sources.includes(`'${name}'`)]).toEqual([rule.alert, name, true]);
  }
});

test('the dead-letter queue alerts: anything waiting for 10 minutes, and a page near its 10,000 cap', () => {
  const dead = alerts.filter((a) => a.expr.includes('tracker_consumer_dead_letter_messages'));
  const waiting = dead.find((a) => /\) > 0$/.test(a.expr.trim()))!;
  expect(waiting).toMatchObject({ alert: 'TrackerDeadLetters', for: '10m' });
  const nearlyFull = dead.find((a) => a !== waiting)!;
  const bound = Number(/> (\d+)$/.exec(nearlyFull.expr.trim())![1]);
  expect(bound).toBeGreaterThanOrEqual(5000);
  expect(bound).toBeLessThan(10_000);
  expect(nearlyFull.labels.severity).toBe('page');
});

test('the operations guide explains exactly the alerts there are', () => {
  const explained = [...guide.matchAll(/^### (Tracker\w+)$/gm)].map((m) => m[1]);
  expect(explained.sort()).toEqual(alerts.map((a) => a.alert).sort());
});

test('the operations guide lists every Tracker series the services export', () => {
  const exported = [...new Set([...sources.matchAll(/'(tracker_[a-z_]+|http_[a-z_]+)'/g)].map((m) => m[1]!))];
  expect(exported.length).toBeGreaterThanOrEqual(10);
  for (const name of exported) expect([name, guide.includes(`\`${name}`)]).toEqual([name, true]);
});
