import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { connect } from 'amqplib';
import { amqpTestNames, amqpUrlVia, testAmqpUrl } from './amqp';
import { createTestSchema, type TestSchema } from './database';
import { checkDocumentedAnswer } from './documented-responses';
import { startService, type ServiceName, type ServiceProcess } from './processes';
import { flushTestRedis, testRedisDb, testRedisUrl } from './redis';
import { hostPort, startTcpProxy, type TcpProxy } from './tcp-proxy';

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
 */
export interface System {
  /** The running processes; a test that restarts one puts the new process here. */
  services: Record<ServiceName, ServiceProcess>;
  gatewayUrl: string;
  secret: string;
  schema: TestSchema;
  issuesSchema: TestSchema;
  statisticsSchema: TestSchema;
  /** Redis as the gateway and the other readers of the caches reach it. */
  redisRelay: TcpProxy;
  /** Redis as the access service (the only writer of the caches) reaches it. */
  accessRedisRelay: TcpProxy;
  /** RabbitMQ as every service reaches it. */
  amqpRelay: TcpProxy;
  serviceEnv: Record<string, string>;
  /** `pnpm -s admin <args> --json` against this system; the parsed last line. */
  admin: (...args: string[]) => Promise<any>;
  api: (method: string, path: string, options?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string>; baseUrl?: string }) => Promise<ApiResponse>;
  startGateway: (env?: Record<string, string>) => Promise<ServiceProcess>;
  /** Another agent service replica (give its url to a gateway as AGENT_URL). */
  startAgent: () => Promise<ServiceProcess>;
  /** The environment the statistics service was started with (to restart it). */
  statisticsEnv: Record<string, string>;
  stop: () => Promise<void>;
}

export async function startSystem(
  options: {
    gatewayEnv?: Record<string, string>;
    /** Another broker than the shared test broker (e.g. startPrivateBroker's), reached through amqpRelay; its query (heartbeat) is kept. */
    amqpUrl?: string;
  } = {},
): Promise<System> {
  const amqpUrl = options.amqpUrl ?? testAmqpUrl();
  await flushTestRedis();
  const [schema, issuesSchema, statisticsSchema] = await Promise.all([
    createTestSchema('e2e', path.join(REPO_ROOT, 'services/access/prisma/migrations')),
    createTestSchema('e2eissues', path.join(REPO_ROOT, 'services/issues/prisma/migrations')),
    createTestSchema('e2estats', path.join(REPO_ROOT, 'services/statistics/prisma/migrations')),
  ]);
  const [redisHost, redisPort] = hostPort(testRedisUrl());
  const redisRelay = await startTcpProxy(redisHost, redisPort);
  const accessRedisRelay = await startTcpProxy(redisHost, redisPort);
  const amqpRelay = await startTcpProxy(...hostPort(amqpUrl));
  const secret = randomBytes(32).toString('hex');
  // This system's own exchange and queues on the shared broker.
  const amqpNames = amqpTestNames('e2e');
  const serviceEnv = {
    INTERNAL_SECRET: secret,
    AMQP_URL: amqpUrlVia(amqpRelay.port, '127.0.0.1', amqpUrl),
    EVENTS_EXCHANGE: amqpNames.exchange,
    EVENTS_QUEUE: amqpNames.queue('statistics.events'),
    DATABASE_URL: schema.databaseUrl,
    DATABASE_SCHEMA: schema.schema,
    REDIS_URL: `${redisRelay.url('redis')}/${testRedisDb()}`,
  };
  const accessEnv = { ...serviceEnv, REDIS_URL: `${accessRedisRelay.url('redis')}/${testRedisDb()}` };
  const started: ServiceProcess[] = [];
  const launch = async (name: ServiceName, env: Record<string, string>) => {
    try {
      const service = await startService(name, env);
      started.push(service);
      return service;
    } catch (error) {
      // A start that fails part-way must not leave the services it did start running.
      await Promise.all(started.map((s) => s.stop('SIGKILL')));
      await Promise.all([redisRelay.close(), accessRedisRelay.close(), amqpRelay.close()]);
      await Promise.all([schema.drop(), issuesSchema.drop(), statisticsSchema.drop()]);
      throw error;
    }
  };
  const access = await launch('access', accessEnv);
  const issues = await launch('issues', { ...serviceEnv, DATABASE_SCHEMA: issuesSchema.schema, ACCESS_URL: access.url });
  const statisticsEnv = { ...serviceEnv, DATABASE_SCHEMA: statisticsSchema.schema, ACCESS_URL: access.url, ISSUES_URL: issues.url, REPLICA_CHECK_INTERVAL_MS: '500' };
  const statistics = await launch('statistics', statisticsEnv);
  const serviceUrls = { ACCESS_URL: access!.url, ISSUES_URL: issues!.url, STATISTICS_URL: statistics!.url };
  const agentEnv = { INTERNAL_SECRET: secret, ...serviceUrls };
  const agent = await launch('agent', agentEnv);
  const upstreams = { ...serviceUrls, AGENT_URL: agent.url };
  const extraProcesses: ServiceProcess[] = [];
  const startAgent = async () => {
    const replica = await startService('agent', agentEnv);
    extraProcesses.push(replica);
    return replica;
  };
  const startGateway = async (env: Record<string, string> = {}) => {
    const gateway = await startService('gateway', { ...serviceEnv, ...upstreams, ...env });
    extraProcesses.push(gateway);
    return gateway;
  };
  const gateway = await launch('gateway', { ...serviceEnv, ...upstreams, ...options.gatewayEnv });
  const services = { gateway, access: access!, issues: issues!, statistics: statistics!, agent };

  return {
    services,
    gatewayUrl: gateway.url,
    secret,
    schema,
    issuesSchema,
    statisticsSchema,
    statisticsEnv,
    redisRelay,
    accessRedisRelay,
    amqpRelay,
    serviceEnv,
    startGateway,
    startAgent,
    async admin(...args) {
      const { stdout } = await run('pnpm', ['-s', 'admin', ...args, '--json'], {
        cwd: REPO_ROOT,
        env: { ...process.env, ...accessEnv, LOG_LEVEL: 'silent' },
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
      const response = await fetch((opts.baseUrl ?? gateway.url) + urlPath, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text for the assertion message
      }
      const answer = { status: response.status, body: parsed, headers: response.headers, ms: Date.now() - started };
      // Every answer of the public API must be what the OpenAPI document says it is.
      const viaGateway = !Object.values(services).some((s) => s.name !== 'gateway' && opts.baseUrl === s.url);
      if (viaGateway && urlPath.startsWith('/api/v1')) {
        const undocumented = checkDocumentedAnswer(method, urlPath, answer.status, response.headers.get('content-type'), parsed);
        if (undocumented) throw new Error(`answer not as documented in the OpenAPI document: ${JSON.stringify(undocumented)}\nbody: ${text.slice(0, 500)}`);
      }
      return answer;
    },
    async stop() {
      await Promise.all([...Object.values(services), ...extraProcesses].map((s) => s.stop('SIGTERM')));
      await redisRelay.close();
      await accessRedisRelay.close();
      await amqpRelay.close();
      await Promise.all([schema.drop(), issuesSchema.drop(), statisticsSchema.drop()]);
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

/** Whether a service prints `text` within the time (log lines arrive through a pipe). */
export async function waitForOutput(service: ServiceProcess, text: string, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!service.output().includes(text)) {
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
