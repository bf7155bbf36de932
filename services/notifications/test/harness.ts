import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import type { QueueRole } from '@tracker/contracts';
import { eventSourceOf, routingKeyOf, taggedEventHeaders, type EventEnvelope } from '@tracker/events';
import { PRINCIPAL_HEADER, serve, type Logger, type RunningServer } from '@tracker/kit';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import {
  amqpTestNames,
  createTestSchema,
  newMember,
  newWorkspace,
  openEventStream,
  signedClient,
  ticketFor,
  startFakeAccess,
  testAmqpUrl,
  testRedisUrl,
  type AmqpTestNames,
  type FakeAccess,
  type Member,
  type OpenedEventStream,
  type SignedReply as Reply,
  type TestSchema,
  type Workspace,
} from '@tracker/testing';
import { createNotificationsService, type NotificationsService } from '../src/app';
import { loadNotificationsConfig } from '../src/config';
import { recordEvents } from '../src/domain/record-events.use-case';

const DEV_TRUSTED = parseTrustedKeys(devTrustedKeysText());

export const MIGRATIONS = path.join(__dirname, '../prisma/migrations');

export type { Member, Workspace };

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

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
  publish: (events: Array<EventEnvelope | { routingKey: string; raw: string }>) => Promise<void>;
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
  const config = loadNotificationsConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: schema.databaseUrl,
    DATABASE_SCHEMA: schema.schema,
    REDIS_URL: testRedisUrl(),
    ACCESS_URL: access.url,
    AMQP_URL: testAmqpUrl(),
    EVENTS_RETRY_DELAY_MS: '100',
    EVENTS_MAX_ATTEMPTS: '3',
    ...(amqp ? { EVENTS_EXCHANGE: amqp.exchange, EVENTS_QUEUE: queue } : {}),
    ...options.env,
  });
  const logs: LogLine[] = [];
  const logger: Logger = pino(
    { level: 'debug', base: { service: 'notifications' } },
    new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        done();
      },
    }),
  );
  const service = createNotificationsService(config, { logger, clock: options.clock });
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
    async publish(events) {
      for (const e of events) {
        const [routingKey, content, messageId] =
          'raw' in e ? [e.routingKey, Buffer.from(e.raw), undefined] : [routingKeyOf(e.type), Buffer.from(JSON.stringify(e)), e.event_id];
        // As the publishers' relays send them: tagged for each consumer under the key each shares with it.
        const headers = 'raw' in e ? {} : taggedEventHeaders({ key: devSigningKey(eventSourceOf[e.type]), trusted: DEV_TRUSTED }, e, content);
        channel!.publish(amqp!.exchange, routingKey, content, { persistent: true, contentType: 'application/json', messageId, headers });
      }
      await channel!.waitForConfirms();
    },
    async handled(eventIds, times = 1, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!eventIds.every((id) => handledCount(id) >= times)) {
        if (Date.now() > deadline) throw new Error(`events not handled ${times}x within ${timeoutMs} ms: ${eventIds.filter((id) => handledCount(id) < times).length} left`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      for (const stream of streams) stream.close();
      await running.shutdown();
      await consumers?.stop();
      await worker?.stop();
      if (channel && amqp) await amqp.cleanup(channel).catch(() => undefined);
      await connection?.close().catch(() => undefined);
      await service.close();
      await access.close();
      await schema.drop();
    },
  };
}

/** The problem+json body every error answer has. */
export const problem = (status: number, code: string) =>
  expect.objectContaining({ status, code, title: expect.any(String), detail: expect.any(String), type: expect.any(String) });

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
