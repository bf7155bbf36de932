import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect } from 'amqplib';
import { pollUntil } from '@tracker/system-tests-support';
import { amqpTestNames, freePort, testAmqpUrl, testDatabaseUrl, testRedisUrl } from '@tracker/testing';

/**
 * scripts/start-all.mjs (what `pnpm start` runs) with every service port moved, as for a
 * second copy on one machine: each /metrics listener is on its own service's port + 1000,
 * or on the port <NAME>_METRICS_PORT gives, not on the defaults' + 1000. The listeners are
 * told apart by the `service` label every metric carries. The services run against a
 * schema that does not exist (their metrics listeners do not need one), this worker's
 * Redis database and an exchange of their own.
 */
const ROOT = path.resolve(__dirname, '../../..');
const SERVICES = ['gateway', 'access', 'issues', 'statistics', 'agent', 'notifications', 'web'] as const;
type Service = (typeof SERVICES)[number];

const amqp = amqpTestNames('startall');
let child: ChildProcess | undefined;
let exited: Promise<number | null> | undefined;
let output = '';

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    // start-all stops its services on SIGTERM; a copy that hangs must not outlive the test.
    const timer = setTimeout(() => process.kill(-child!.pid!, 'SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
  const connection = await connect(testAmqpUrl());
  try {
    await amqp.cleanup(await connection.createChannel());
  } finally {
    await connection.close();
  }
}, 30_000);

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A free port whose port + 1000 is free as well, neither among `taken`. */
async function freePortPair(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 1000 > 65535 || taken.has(port) || taken.has(port + 1000) || !(await canListen(port + 1000))) continue;
    taken.add(port).add(port + 1000);
    return port;
  }
}

async function metricsAt(port: number): Promise<string> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    return res.ok ? await res.text() : '';
  } catch {
    return '';
  }
}

test('when every service port is moved, then each metrics listener follows its service (+ 1000) or its own METRICS_PORT', async () => {
  const taken = new Set<number>();
  const ports = {} as Record<Service, number>;
  for (const name of SERVICES) ports[name] = await freePortPair(taken);
  let agentMetrics = await freePort();
  while (taken.has(agentMetrics)) agentMetrics = await freePort();
  const metricsPorts: Record<Service, number> = {
    gateway: ports.gateway + 1000,
    access: ports.access + 1000,
    issues: ports.issues + 1000,
    statistics: ports.statistics + 1000,
    agent: agentMetrics,
    notifications: ports.notifications + 1000,
    web: ports.web + 1000,
  };

  child = spawn(process.execPath, [path.join(ROOT, 'scripts/start-all.mjs')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      ...(process.env.HOME && { HOME: process.env.HOME }),
      LOG_LEVEL: 'warn',
      DATABASE_URL: testDatabaseUrl(),
      DATABASE_SCHEMA: `t_startall_${randomBytes(4).toString('hex')}`,
      REDIS_URL: testRedisUrl(),
      AMQP_URL: testAmqpUrl(),
      EVENTS_EXCHANGE: amqp.exchange,
      EVENTS_QUEUE: amqp.queue('statistics.events'),
      ...Object.fromEntries(SERVICES.map((name) => [`${name.toUpperCase()}_PORT`, String(ports[name])])),
      AGENT_METRICS_PORT: String(agentMetrics),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const started = child;
  started.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  started.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  exited = new Promise((resolve) => started.once('exit', (code) => resolve(code)));

  const scrapes = await pollUntil(
    () => Promise.all(SERVICES.map((name) => metricsAt(metricsPorts[name]))),
    (texts) => texts.every((t) => t !== '') || started.exitCode !== null,
    30_000,
  );
  SERVICES.forEach((name, i) => {
    if (!scrapes[i]!.includes(`service="${name}"`)) throw new Error(`no metrics of ${name} on port ${metricsPorts[name]}; start-all printed:\n${output.slice(-4000)}`);
  });

  started.kill('SIGTERM');
  expect(await exited).toBe(0);
}, 60_000);
