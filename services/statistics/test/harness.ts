import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { eventSourceOf, routingKeyOf, taggedEventHeaders, type EventEnvelope } from '@tracker/events';
import { serve, type Logger, type RunningServer } from '@tracker/kit';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import { amqpTestNames, type AmqpTestNames, createTestSchema, type FakeAccess, type Member, newMember, newWorkspace, signedClient, type SignedReply as Reply, startFakeAccess, testAmqpUrl, testRedisUrl, type TestSchema, type Workspace } from '@tracker/testing';
import type { QueueRole } from '@tracker/contracts';
import { createStatisticsService, type StatisticsService } from '../src/app';
import { loadStatisticsConfig } from '../src/config';
import type { IssueStateData, QueueStateData } from '../src/domain/replica';
import { startFakeIssues, type FakeIssues } from './fake-issues';
import { withQueuesLookup } from './queues-lookup';

const DEV_TRUSTED = parseTrustedKeys(devTrustedKeysText());

export const MIGRATIONS = path.join(__dirname, '../prisma/migrations');

export type { Member, Workspace };

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

/**
 * The statistics service in this test process, on a random port, in its own schema,
 * with fake access and issues services and (with `consumer`) its own exchange and queue
 * on the real broker.
 */
export interface StatisticsHarness {
  url: string;
  service: StatisticsService;
  schema: TestSchema;
  access: FakeAccess;
  issues: FakeIssues;
  amqp: AmqpTestNames | null;
  /** The consumer's queue (with `consumer`). */
  queue: string;
  logs: LogLine[];
  workspace: () => Workspace;
  member: (workspaceId: number, role?: 'admin' | 'member') => Member;
  grant: (member: Member, queueId: number, role: QueueRole | null) => void;
  /** Registers a queue with the fake access service only, as the issues service does before the queue exists. */
  registerQueue: (queue: QueueStateData) => void;
  call: (method: string, path: string, options?: { as?: Member | null; body?: unknown; raw?: string; headers?: Record<string, string> }) => Promise<Reply>;
  /** Publishes events to the test exchange with their routing keys, signed as their publisher's relay does (raw text unsigned), confirmed by the broker. */
  publish: (events: Array<EventEnvelope | { routingKey: string; raw: string }>) => Promise<void>;
  /** Resolves once every given event id has been handled `times` times (from the consumer's debug log). */
  handled: (eventIds: string[], times?: number, timeoutMs?: number) => Promise<void>;
  markBuilt: (snapshotAt?: Date) => Promise<void>;
  /** Writes queues and issues straight into the replica tables (not through the code under test); queues are registered with the fake access service too. */
  seed: (rows: { queues?: QueueStateData[]; issues?: IssueStateData[]; comments?: Array<{ id: number; issueId: number; body: string | null }> }) => Promise<void>;
  close: () => Promise<void>;
}

export async function startStatistics(options: { consumer?: boolean; env?: Record<string, string>; clock?: () => Date } = {}): Promise<StatisticsHarness> {
  const schema = await createTestSchema('statistics', MIGRATIONS);
  const [access, issues] = await Promise.all([startFakeAccess('statistics').then((fake) => withQueuesLookup(fake, 'statistics')), startFakeIssues()]);
  const amqp = options.consumer ? amqpTestNames('statistics') : null;
  const queue = amqp ? amqp.queue('statistics.events') : '';
  const config = loadStatisticsConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: schema.databaseUrl,
    DATABASE_SCHEMA: schema.schema,
    DATABASE_POOL_MAX: '20',
    REDIS_URL: testRedisUrl(),
    ACCESS_URL: access.url,
    ISSUES_URL: issues.url,
    AMQP_URL: testAmqpUrl(),
    EVENTS_RETRY_DELAY_MS: '100',
    EVENTS_MAX_ATTEMPTS: '3',
    ...(amqp ? { EVENTS_EXCHANGE: amqp.exchange, EVENTS_QUEUE: queue } : {}),
    ...options.env,
  });
  const logs: LogLine[] = [];
  const logger: Logger = pino(
    { level: 'debug', base: { service: 'statistics' } },
    new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        done();
      },
    }),
  );
  const service = createStatisticsService(config, { logger, clock: options.clock });
  const running: RunningServer = await serve(service.app, { port: 0, host: '127.0.0.1', logger, graceMs: 1000 });
  const url = `http://127.0.0.1:${running.port}`;

  let connection: ChannelModel | null = null;
  let channel: ConfirmChannel | null = null;
  const consumers = amqp ? service.startConsumers() : null;
  if (amqp) {
    await consumers!.ready();
    connection = await connect(testAmqpUrl());
    connection.on('error', () => undefined);
    channel = await connection.createConfirmChannel();
    channel.on('error', () => undefined);
  }

  const member: StatisticsHarness['member'] = (workspaceId, role = 'member') => newMember(access, workspaceId, { role });

  const registerQueue = (queue: QueueStateData) => access.registeredQueues.set(queue.id, { workspaceId: queue.workspace_id, key: queue.key });

  const signedCall = signedClient(url, 'statistics');
  const handledCount = (eventId: string) => logs.filter((l) => l.msg === 'event' && l.eventId === eventId).length;

  return {
    url,
    service,
    schema,
    access,
    issues,
    amqp,
    queue,
    logs,
    workspace: () => newWorkspace(access),
    member,
    grant: (m, queueId, role) => access.grant(m.id, queueId, role),
    registerQueue,
    call: (method, path, { as, ...options } = {}) => signedCall(method, path, { ...options, as: as?.principal }),
    async publish(events) {
      for (const e of events) {
        const [routingKey, content, messageId] =
          'raw' in e ? [e.routingKey, Buffer.from(e.raw), undefined] : [routingKeyOf(e.type), Buffer.from(JSON.stringify(e)), e.event_id];
        // As the publishers' relays send them: tagged for this service under the key each shares with it.
        const headers = 'raw' in e ? {} : taggedEventHeaders({ key: devSigningKey(eventSourceOf[e.type]), trusted: DEV_TRUSTED }, e, content);
        channel!.publish(amqp!.exchange, routingKey, content, { persistent: true, contentType: 'application/json', messageId, headers });
      }
      await channel!.waitForConfirms();
    },
    async handled(eventIds, times = 1, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!eventIds.every((id) => handledCount(id) >= times)) {
        if (Date.now() > deadline) throw new Error(`events not handled ${times}x within ${timeoutMs} ms: ${eventIds.filter((id) => handledCount(id) < times).length} left`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    markBuilt: (snapshotAt = new Date()) => service.replica.markBuilt(snapshotAt),
    async seed({ queues = [], issues: issueRows = [], comments = [] }) {
      if (queues.length) {
        queues.forEach(registerQueue);
        await schema.query(
          `INSERT INTO queues (id, workspace_id, key, name, description, revision, created_at, updated_at)
           SELECT id, workspace_id, key, name, description, 1, created_at, updated_at
           FROM jsonb_to_recordset($1::jsonb) AS r(id int, workspace_id int, key text, name text, description text, created_at timestamptz, updated_at timestamptz)`,
          [JSON.stringify(queues)],
        );
        const statuses = queues.flatMap((q) => q.statuses.map((s) => ({ ...s, queue_id: q.id })));
        await schema.query(
          `INSERT INTO statuses (id, queue_id, name, category, position)
           SELECT id, queue_id, name, category::status_category, position
           FROM jsonb_to_recordset($1::jsonb) AS r(id int, queue_id int, name text, category text, position int)`,
          [JSON.stringify(statuses)],
        );
      }
      if (issueRows.length) {
        await schema.query(
          `INSERT INTO issues (id, workspace_id, queue_id, key, title, description, status_id, status_category, assignee_id, parent_id,
                               priority, type, labels, due_date, estimate_minutes, spent_minutes, version, revision, created_at, updated_at)
           SELECT id, workspace_id, queue_id, key, title, description, status_id, status_category::status_category, assignee_id, parent_id,
                  priority::issue_priority, type, labels, due_date, estimate_minutes, spent_minutes, version, 1, created_at, updated_at
           FROM jsonb_to_recordset($1::jsonb) AS r(id int, workspace_id int, queue_id int, key text, title text, description text,
             status_id int, status_category text, assignee_id int, parent_id int, priority text, type text, labels text[], due_date date,
             estimate_minutes int, spent_minutes int, version int, created_at timestamptz, updated_at timestamptz)`,
          [JSON.stringify(issueRows)],
        );
      }
      if (comments.length) {
        await schema.query(
          `INSERT INTO comments (id, issue_id, body) SELECT id, issue_id, body FROM jsonb_to_recordset($1::jsonb) AS r(id int, issue_id int, body text)`,
          [JSON.stringify(comments.map((c) => ({ id: c.id, issue_id: c.issueId, body: c.body })))],
        );
      }
    },
    async close() {
      await running.shutdown();
      await consumers?.stop();
      if (channel && amqp) await amqp.cleanup(channel).catch(() => undefined);
      await connection?.close().catch(() => undefined);
      await service.close();
      await Promise.all([access.close(), issues.close()]);
      await schema.drop();
    },
  };
}

/** The problem+json body every error answer has. */
export const problem = (status: number, code: string) =>
  expect.objectContaining({ status, code, title: expect.any(String), detail: expect.any(String), type: expect.any(String) });

/** The replica as plain data, in the shapes the events carry, to compare with what the source holds. */
export async function readReplica(schema: TestSchema) {
  const iso = (col: string, alias = col) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${alias}`;
  const issues = await schema.query<any>(
    `SELECT id, workspace_id, queue_id, key, title, description, status_id, status_category::text AS status_category, assignee_id, parent_id,
            priority::text AS priority, type, labels, due_date::text AS due_date, estimate_minutes, spent_minutes, version, revision,
            ${iso('created_at')}, ${iso('updated_at')}
     FROM issues ORDER BY id`,
  );
  const queues = await schema.query<any>(
    `SELECT q.id, q.workspace_id, q.key, q.name, q.description, q.revision, ${iso('q.created_at', 'created_at')}, ${iso('q.updated_at', 'updated_at')},
            (SELECT coalesce(json_agg(json_build_object('id', s.id, 'name', s.name, 'category', s.category, 'position', s.position) ORDER BY s.position), '[]')
             FROM statuses s WHERE s.queue_id = q.id) AS statuses
     FROM queues q ORDER BY q.id`,
  );
  const comments = await schema.query<{ id: number; issue_id: number; body: string | null }>('SELECT id, issue_id, body FROM comments ORDER BY id');
  return {
    issues: Object.fromEntries(issues.map(({ revision, ...issue }) => [issue.id, { revision, issue }])),
    queues: Object.fromEntries(queues.map(({ revision, ...queue }) => [queue.id, { revision, queue }])),
    comments: Object.fromEntries(comments.map((c) => [c.id, { issueId: c.issue_id, body: c.body }])),
  };
}

/** What readReplica should return for these final states. */
export function expectedReplica(
  issues: Array<{ revision: number; issue: IssueStateData; comments: Array<{ id: number; body: string }> }>,
  queues: Array<{ revision: number; queue: QueueStateData }>,
) {
  return {
    issues: Object.fromEntries(issues.map(({ revision, issue }) => [issue.id, { revision, issue: { ...issue, description: issue.description ?? null } }])),
    queues: Object.fromEntries(queues.map(({ revision, queue }) => [queue.id, { revision, queue }])),
    comments: Object.fromEntries(issues.flatMap(({ issue, comments }) => comments.map((c) => [c.id, { issueId: issue.id, body: c.body }]))),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` stops throwing (the last error is rethrown after the timeout). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}
