import path from 'node:path';
import pino from 'pino';
import type { QueueRole } from '@tracker/contracts';
import type { EventEnvelope } from '@tracker/events';
import { PRINCIPAL_HEADER, serve, type Logger, type RunningServer } from '@tracker/kit';
import {
  amqpTestNames,
  consumerTestEnv,
  createTestSchema,
  logSink,
  newMember,
  newWorkspace,
  openEventStream,
  signedClient,
  ticketFor,
  serviceTestEnv,
  startFakeAccess,
  untilHandled,
  type AmqpTestNames,
  type FakeAccess,
  type LogLine,
  type Member,
  type OpenedEventStream,
  type SignedReply as Reply,
  type TestSchema,
  type Workspace,
} from '@tracker/testing';
import { startEventPublisher, type EventPublisher, type TestMessage } from '@tracker/events/testing';
import { createNotificationsService, type NotificationsService } from '../src/app';
import { loadNotificationsConfig } from '../src/config';
import { recordEvents } from '../src/domain/record-events.use-case';

export const MIGRATIONS = path.join(__dirname, '../prisma/migrations');

export type { LogLine, Member, Workspace };
export { eventually, problem, sleep } from '@tracker/testing';

/**
 * The notifications service in this test process, on a random port, in its own schema,
 * with a fake access service (the callers' grants) and (with `consumer`) its own exchange
 * and queue on the real broker.
 */
export interface NotificationsHarness {
  url: string;
  service: NotificationsService;
  schema: TestSchema;
  access: FakeAccess;
  amqp: AmqpTestNames | null;
  /** The consumer's queue (with `consumer`). */
  queue: string;
  logs: LogLine[];
  workspace: () => Workspace;
  member: (workspaceId: number, role?: 'admin' | 'member') => Member;
  grant: (member: Member, queueId: number, role: QueueRole | null) => void;
  call: (method: string, path: string, options?: { as?: Member | null; headers?: Record<string, string>; body?: unknown }) => Promise<Reply>;
  /** Opens GET `path` (the live stream) as `as`, reading it as it comes; the test closes it. */
  stream: (path: string, options: { as: Member; headers?: Record<string, string> }) => Promise<OpenedEventStream>;
  /** Records events straight through the use case the consumer runs (no broker), in one batch. */
  record: (events: EventEnvelope[]) => Promise<string[]>;
  /** Publishes events to the test exchange with their routing keys, tagged as their publisher's relay does (raw text untagged), confirmed by the broker. */
  publish: (events: TestMessage[]) => Promise<void>;
  /** Resolves once every given event id has been handled `times` times (from the consumer's debug log). */
  handled: (eventIds: string[], times?: number, timeoutMs?: number) => Promise<void>;
  close: () => Promise<void>;
}

export async function startNotifications(
  options: { consumer?: boolean; delivering?: boolean; env?: Record<string, string>; clock?: () => Date } = {},
): Promise<NotificationsHarness> {
  const schema = await createTestSchema('notifications', MIGRATIONS);
  const access = await startFakeAccess('notifications');
  const amqp = options.consumer ? amqpTestNames('notifications') : null;
  const queue = amqp ? amqp.queue('notifications.events') : '';
  const config = loadNotificationsConfig({ ...serviceTestEnv(schema), ACCESS_URL: access.url, ...consumerTestEnv(amqp, queue), ...options.env });
  const { logs, destination } = logSink();
  const logger: Logger = pino({ level: 'debug', base: { service: 'notifications' } }, destination);
  const service = createNotificationsService(config, { logger, clock: options.clock });
  const running: RunningServer = await serve(service.app, { port: 0, host: '127.0.0.1', logger, graceMs: 1000 });
  const url = `http://127.0.0.1:${running.port}`;

  let publisher: EventPublisher | null = null;
  const consumers = amqp ? service.startConsumers() : null;
  if (amqp) {
    await consumers!.ready();
    publisher = await startEventPublisher(amqp);
  }

  const worker = options.delivering ? service.startDelivering() : null;
  const signedCall = signedClient(url, 'notifications');
  const streams: OpenedEventStream[] = [];
  const handledCount = (eventId: string) => logs.filter((l) => (l.msg === 'event' || l.outcome === 'incomplete') && l.eventId === eventId).length;

  return {
    url,
    service,
    schema,
    access,
    amqp,
    queue,
    logs,
    workspace: () => newWorkspace(access),
    member: (workspaceId, role = 'member') => newMember(access, workspaceId, { role }),
    grant: (m, queueId, role) => access.grant(m.id, queueId, role),
    call: (method, path, { as, ...rest } = {}) => signedCall(method, path, { ...rest, as: as?.principal }),
    async stream(path, { as, headers }) {
      const opened = await openEventStream(url + path, { ...headers, [PRINCIPAL_HEADER]: ticketFor(as.principal, { audience: 'notifications', method: 'GET', path }) });
      streams.push(opened);
      return opened;
    },
    async record(events) {
      const results = await recordEvents({ log: service.deps.log, clock: service.deps.clock, retention: service.deps.retention }, events);
      return results.map((r) => {
        if (!r.ok) throw r.error;
        return r.value;
      });
    },
    publish: (events) => publisher!.publish(events),
    handled: (eventIds, times = 1, timeoutMs = 20_000) => untilHandled(eventIds, handledCount, times, timeoutMs),
    async close() {
      for (const stream of streams) stream.close();
      await running.shutdown();
      await consumers?.stop();
      await worker?.stop();
      await publisher?.close();
      await service.close();
      await access.close();
      await schema.drop();
    },
  };
}
