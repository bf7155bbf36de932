import path from 'node:path';
import pino from 'pino';
import { serve, type Logger, type RunningServer } from '@tracker/kit';
import {
  amqpTestNames,
  type AmqpTestNames,
  consumerTestEnv,
  createTestSchema,
  type FakeAccess,
  type LogLine,
  logSink,
  type Member,
  newMember,
  newWorkspace,
  serviceTestEnv,
  signedClient,
  type SignedReply as Reply,
  startFakeAccess,
  type TestSchema,
  untilHandled,
  type Workspace,
} from '@tracker/testing';
import { startEventPublisher, type EventPublisher, type TestMessage } from '@tracker/events/testing';
import type { QueueRole } from '@tracker/contracts';
import { createStatisticsService, type StatisticsService } from '../src/app';
import { loadStatisticsConfig } from '../src/config';
import type { IssueStateData, QueueStateData } from '../src/domain/replica';
import { startFakeIssues, type FakeIssues } from './fake-issues';
import { withQueuesLookup } from './queues-lookup';

export const MIGRATIONS = path.join(__dirname, '../prisma/migrations');

export type { LogLine, Member, Workspace };
export { eventually, problem, sleep } from '@tracker/testing';

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
  publish: (events: TestMessage[]) => Promise<void>;
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
    ...serviceTestEnv(schema),
    DATABASE_POOL_MAX: '20',
    ACCESS_URL: access.url,
    ISSUES_URL: issues.url,
    ...consumerTestEnv(amqp, queue),
    ...options.env,
  });
  const { logs, destination } = logSink();
  const logger: Logger = pino({ level: 'debug', base: { service: 'statistics' } }, destination);
  const service = createStatisticsService(config, { logger, clock: options.clock });
  const running: RunningServer = await serve(service.app, { port: 0, host: '127.0.0.1', logger, graceMs: 1000 });
  const url = `http://127.0.0.1:${running.port}`;

  let publisher: EventPublisher | null = null;
  const consumers = amqp ? service.startConsumers() : null;
  if (amqp) {
    await consumers!.ready();
    publisher = await startEventPublisher(amqp);
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
    publish: (events) => publisher!.publish(events),
    handled: (eventIds, times = 1, timeoutMs = 15_000) => untilHandled(eventIds, handledCount, times, timeoutMs),
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
      await publisher?.close();
      await service.close();
      await Promise.all([access.close(), issues.close()]);
      await schema.drop();
    },
  };
}

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
