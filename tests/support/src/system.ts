import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { connect } from 'amqplib';
import { signingKeyFromSeed, type SigningKey } from '@tracker/signing';
import {
  amqpTestNames,
  amqpUrlVia,
  createTestSchema,
  flushTestRedis,
  hostPort,
  redisUrlVia,
  startTcpProxy,
  testAmqpUrl,
  testRedisUrl,
  type TcpProxy,
  type TestSchema,
} from '@tracker/testing';
import { checkDocumentedAnswer } from './documented-responses';
import { SERVICE_NAMES, startService, type ServiceName, type ServiceProcess } from './processes';
import { startRoundRobin, type RoundRobin } from './round-robin';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const run = promisify(execFile);

export interface ApiResponse {
  status: number;
  body: any;
  headers: Headers;
  ms: number;
}

/**
 * All services as separate processes, as `pnpm start` runs them, in this test
 * file's own database schema, with Redis reached through a relay the test can cut.
 *
 * Replicated (TRACKER_E2E_REPLICAS=2, see replicasFromEnv): every service, the gateway
 * included, runs as that many processes sharing the schemas, Redis and the broker, each
 * service behind a round-robin (round-robin.ts) that its callers reach as its URL, as a
 * Kubernetes Service spreads requests over pods; gatewayUrl is the round-robin in front
 * of the gateways, so consecutive requests of a test go to different gateways.
 */
export interface System {
  /** The running processes (the first replica of each); a test that restarts one puts the new process here. */
  services: Record<ServiceName, ServiceProcess>;
  /** The further replicas of each service when replicated, empty otherwise; a restarted one goes back at its index. */
  replicas: Record<ServiceName, ServiceProcess[]>;
  /** Every replica of a service: services[name], then replicas[name]. */
  instances: (name: ServiceName) => ServiceProcess[];
  /** The URL the test and the services reach a service by: the round-robin in front of its replicas, or the one process. */
  urls: Record<ServiceName, string>;
  gatewayUrl: string;
  /** The web pages' service (one process, however many replicas the others have: it keeps nothing), the gateway's WEB_URL. */
  web: ServiceProcess;
  /** Every process's signing key, fresh for this system (each process is given its own; all trust all). */
  keys: Record<ServiceName, SigningKey>;
  schema: TestSchema;
  issuesSchema: TestSchema;
  statisticsSchema: TestSchema;
  notificationsSchema: TestSchema;
  /** Redis as the gateway and the other readers of the caches reach it. */
  redisRelay: TcpProxy;
  /** Redis as the access service (the only writer of the caches) reaches it. */
  accessRedisRelay: TcpProxy;
  /** RabbitMQ as every service reaches it. */
  amqpRelay: TcpProxy;
  serviceEnv: Record<string, string>;
  /** serviceEnv with the signing key of `name`: to start another process of that service. */
  envOf: (name: ServiceName) => Record<string, string>;
  /** The operator command line (`pnpm -s admin <args> --json`) against this system; the parsed last line. */
  admin: (...args: string[]) => Promise<any>;
  api: (method: string, path: string, options?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string>; baseUrl?: string }) => Promise<ApiResponse>;
  /** Another gateway, outside the round-robin, reaching the services as the system's gateways do. */
  startGateway: (env?: Record<string, string>) => Promise<ServiceProcess>;
  /** Another agent service replica, outside the round-robin (give its url to a gateway as AGENT_URL). */
  startAgent: () => Promise<ServiceProcess>;
  /** The environment the statistics service was started with (to restart it). */
  statisticsEnv: Record<string, string>;
  /** The environment the notifications service was started with (to restart it, or start another replica). */
  notificationsEnv: Record<string, string>;
  stop: () => Promise<void>;
}

/**
 * How many replicas of every service startSystem runs: TRACKER_E2E_REPLICAS (the
 * tests/e2e-replicated project sets 2), else 1.
 */
export function replicasFromEnv(): number {
  const value = process.env.TRACKER_E2E_REPLICAS;
  if (value === undefined || value === '') return 1;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 8) throw new Error(`TRACKER_E2E_REPLICAS must be an integer from 1 to 8, not ${JSON.stringify(value)}`);
  return count;
}

/** Whether startSystem runs replicated (for a test that cannot mean the same then). */
export const replicated = () => replicasFromEnv() > 1;

export async function startSystem(
  options: {
    gatewayEnv?: Record<string, string>;
    /** Another broker than the shared test broker (e.g. startPrivateBroker's), reached through amqpRelay; its query (heartbeat) is kept. */
    amqpUrl?: string;
    /** Replicas of every service; by default replicasFromEnv(). */
    replicas?: number;
    /** More environment for the notifications service (a short WEBHOOK_RETRY_SCHEDULE, say). */
    notificationsEnv?: Record<string, string>;
  } = {},
): Promise<System> {
  const amqpUrl = options.amqpUrl ?? testAmqpUrl();
  const count = options.replicas ?? replicasFromEnv();
  await flushTestRedis();
  const [schema, issuesSchema, statisticsSchema, notificationsSchema] = await Promise.all([
    createTestSchema('e2e', path.join(REPO_ROOT, 'services/access/prisma/migrations')),
    createTestSchema('e2eissues', path.join(REPO_ROOT, 'services/issues/prisma/migrations')),
    createTestSchema('e2estats', path.join(REPO_ROOT, 'services/statistics/prisma/migrations')),
    createTestSchema('e2enotify', path.join(REPO_ROOT, 'services/notifications/prisma/migrations')),
  ]);
  const [redisHost, redisPort] = hostPort(testRedisUrl());
  const redisRelay = await startTcpProxy(redisHost, redisPort);
  const accessRedisRelay = await startTcpProxy(redisHost, redisPort);
  const amqpRelay = await startTcpProxy(...hostPort(amqpUrl));
  const seeds = Object.fromEntries(SERVICE_NAMES.map((name) => [name, randomBytes(32).toString('base64url')])) as Record<ServiceName, string>;
  const keys = Object.fromEntries(SERVICE_NAMES.map((name) => [name, signingKeyFromSeed(name, seeds[name])])) as Record<ServiceName, SigningKey>;
  const withKey = (name: ServiceName, env: Record<string, string>) => ({ ...env, INTERNAL_SIGNING_KEY: seeds[name] });
  // This system's own exchange and queues on the shared broker.
  const amqpNames = amqpTestNames('e2e');
  const serviceEnv = {
    INTERNAL_TRUSTED_KEYS: SERVICE_NAMES.map((name) => `${name}:${keys[name].publicKey}`).join(','),
    AMQP_URL: amqpUrlVia(amqpRelay.port, '127.0.0.1', amqpUrl),
    EVENTS_EXCHANGE: amqpNames.exchange,
    EVENTS_QUEUE: amqpNames.queue('statistics.events'),
    DATABASE_URL: schema.databaseUrl,
    DATABASE_SCHEMA: schema.schema,
    REDIS_URL: redisUrlVia(redisRelay.port),
  };
  const accessEnv = { ...serviceEnv, REDIS_URL: redisUrlVia(accessRedisRelay.port) };
  const started: ServiceProcess[] = [];
  const roundRobins: RoundRobin[] = [];
  const replicas = Object.fromEntries(SERVICE_NAMES.map((name) => [name, [] as ServiceProcess[]])) as Record<ServiceName, ServiceProcess[]>;
  const urls = {} as Record<ServiceName, string>;
  /** Every replica of a service at once, and the URL its callers use: the one process, or a round-robin in front of them. */
  const launch = async (name: ServiceName, env: Record<string, string>) => {
    // Settled, not raced: a failed start must not leave a replica still starting.
    const results = await Promise.allSettled(Array.from({ length: count }, () => startService(name, withKey(name, env))));
    for (const result of results) if (result.status === 'fulfilled') started.push(result.value);
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const [first, ...others] = results.map((result) => (result as PromiseFulfilledResult<ServiceProcess>).value);
    replicas[name] = others;
    if (count === 1) {
      urls[name] = first!.url;
    } else {
      const roundRobin = await startRoundRobin([first!, ...others].map((s) => s.url));
      roundRobins.push(roundRobin);
      urls[name] = roundRobin.url;
    }
    return first!;
  };
  // The failure-counting limit of the gateway stays out of the way of tests sending bad tokens; a test of that limit sets it.
  const gatewayDefaults = { AUTH_FAILURES_PER_MINUTE: '100000' };
  let statisticsEnv: Record<string, string>;
  let notificationsEnv: Record<string, string>;
  let agentEnv: Record<string, string>;
  let upstreams: Record<string, string>;
  let services: Record<ServiceName, ServiceProcess>;
  let web: ServiceProcess;
  try {
    web = await startService('web', {});
    started.push(web);
    const access = await launch('access', accessEnv);
    const issues = await launch('issues', { ...serviceEnv, DATABASE_SCHEMA: issuesSchema.schema, ACCESS_URL: urls.access });
    statisticsEnv = withKey('statistics', { ...serviceEnv, DATABASE_SCHEMA: statisticsSchema.schema, ACCESS_URL: urls.access, ISSUES_URL: urls.issues, REPLICA_CHECK_INTERVAL_MS: '500' });
    const statistics = await launch('statistics', statisticsEnv);
    // Its own queue on this system's exchange: a consumer of the same events beside statistics, not a competitor for them.
    // Webhooks may reach the tests' receivers on 127.0.0.1, and the published examples' host (the contract test creates a webhook there).
    notificationsEnv = withKey('notifications', {
      ...serviceEnv,
      DATABASE_SCHEMA: notificationsSchema.schema,
      EVENTS_QUEUE: amqpNames.queue('notifications.events'),
      ACCESS_URL: urls.access,
      WEBHOOK_ALLOWED_TARGETS: '127.0.0.1,hooks.example.com',
      ...options.notificationsEnv,
    });
    const notifications = await launch('notifications', notificationsEnv);
    const serviceUrls = { ACCESS_URL: urls.access, ISSUES_URL: urls.issues, STATISTICS_URL: urls.statistics, NOTIFICATIONS_URL: urls.notifications };
    agentEnv = { INTERNAL_TRUSTED_KEYS: serviceEnv.INTERNAL_TRUSTED_KEYS, REDIS_URL: serviceEnv.REDIS_URL, ...serviceUrls };
    const agent = await launch('agent', agentEnv);
    upstreams = { ...serviceUrls, AGENT_URL: urls.agent, WEB_URL: web.url };
    const gateway = await launch('gateway', { ...gatewayDefaults, ...serviceEnv, ...upstreams, ...options.gatewayEnv });
    services = { gateway, access, issues, statistics, agent, notifications };
  } catch (error) {
    // A start that fails part-way must not leave the services it did start running.
    await Promise.all(started.map((s) => s.stop('SIGKILL')));
    await Promise.all([...roundRobins.map((r) => r.close()), redisRelay.close(), accessRedisRelay.close(), amqpRelay.close()]);
    await Promise.all([schema.drop(), issuesSchema.drop(), statisticsSchema.drop(), notificationsSchema.drop()]);
    throw error;
  }
  const extraProcesses: ServiceProcess[] = [];
  const startAgent = async () => {
    const replica = await startService('agent', withKey('agent', agentEnv));
    extraProcesses.push(replica);
    return replica;
  };
  const startGateway = async (env: Record<string, string> = {}) => {
    const gateway = await startService('gateway', withKey('gateway', { ...gatewayDefaults, ...serviceEnv, ...upstreams, ...env }));
    extraProcesses.push(gateway);
    return gateway;
  };
  const instances = (name: ServiceName) => [services[name], ...replicas[name]];
  /** The addresses of the services behind the gateway, processes and round-robins: answers from there are not the public API's. */
  const behindGateway = () => new Set([web.url, ...SERVICE_NAMES.filter((name) => name !== 'gateway').flatMap((name) => [urls[name], ...instances(name).map((s) => s.url)])]);

  return {
    services,
    replicas,
    instances,
    urls,
    gatewayUrl: urls.gateway,
    web,
    keys,
    schema,
    issuesSchema,
    statisticsSchema,
    notificationsSchema,
    statisticsEnv,
    notificationsEnv,
    redisRelay,
    accessRedisRelay,
    amqpRelay,
    serviceEnv,
    envOf: (name) => withKey(name, serviceEnv),
    startGateway,
    startAgent,
    async admin(...args) {
      // The command line as the access image runs it (compiled: dist/cli/main.js), without
      // pnpm's launcher: it seeds every user of every test (admin-cli.test runs `pnpm -s admin`).
      const { stdout } = await run(process.execPath, ['services/access/dist/cli/main.js', ...args, '--json'], {
        cwd: REPO_ROOT,
        env: { ...process.env, ...withKey('access', accessEnv), LOG_LEVEL: 'silent' },
      });
      const lines = stdout.trim().split('\n');
      return JSON.parse(lines[lines.length - 1]!);
    },
    async api(method, urlPath, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const started = Date.now();
      const response = await fetch((opts.baseUrl ?? urls.gateway) + urlPath, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text for the assertion message
      }
      const answer = { status: response.status, body: parsed, headers: response.headers, ms: Date.now() - started };
      // Every answer of the public API must be what the OpenAPI document says it is.
      const viaGateway = opts.baseUrl === undefined || !behindGateway().has(opts.baseUrl);
      if (viaGateway && urlPath.startsWith('/api/v1')) {
        const undocumented = checkDocumentedAnswer(method, urlPath, answer.status, response.headers.get('content-type'), parsed);
        if (undocumented) throw new Error(`answer not as documented in the OpenAPI document: ${JSON.stringify(undocumented)}\nbody: ${text.slice(0, 500)}`);
      }
      return answer;
    },
    async stop() {
      const processes = new Set([...SERVICE_NAMES.flatMap(instances), web, ...extraProcesses]);
      await Promise.all([...processes].map((s) => s.stop('SIGTERM')));
      await Promise.all(roundRobins.map((r) => r.close()));
      await redisRelay.close();
      await accessRedisRelay.close();
      await amqpRelay.close();
      await Promise.all([schema.drop(), issuesSchema.drop(), statisticsSchema.drop(), notificationsSchema.drop()]);
      const connection = await connect(amqpUrl);
      try {
        await amqpNames.cleanup(await connection.createChannel());
      } finally {
        await connection.close();
      }
    },
  };
}

/** A workspace made through the operator command line, with one admin and one member. */
export async function seedWorkspace(system: System, name = `ws-${randomBytes(3).toString('hex')}`) {
  const ws = await system.admin('workspace', 'create', '--name', name, '--admin-name', 'Ada');
  const member = await system.admin('user', 'add', '--workspace', String(ws.workspace_id), '--name', 'Bob');
  return {
    id: ws.workspace_id as number,
    admin: { id: ws.user_id as number, token: ws.token as string },
    member: { id: member.user_id as number, token: member.token as string },
  };
}

/** Whether a service (or any of several replicas) prints `text` within the time (log lines arrive through a pipe). */
export async function waitForOutput(service: ServiceProcess | ServiceProcess[], text: string, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const printed = () => [service].flat().some((s) => s.output().includes(text));
  while (!printed()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** Reads until `done` accepts the value or the time is up; returns the last value read (the test asserts on it). */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    value = await read();
  }
  return value;
}
