import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { connect } from 'amqplib';
import { signedEventHeaders } from '@tracker/events';
import { startSystem, waitForReplica, type System } from '@tracker/system-tests-support';
import { testAmqpUrl } from '@tracker/testing';
import { createWorkspace, logLines, outboxBacklog, restart, seedBoard, startWriter, until } from './events-support';

/**
 * The statistics side of "nothing lost, nothing doubled": the consumer killed with SIGKILL
 * in the middle of a stream of writes (unacked deliveries redelivered, half-applied
 * batches), and a rebuild from scratch racing live events. Afterwards the replica equals
 * the issues service's tables row by row.
 */
let system: System;
let workspace: { workspaceId: number; token: string };
beforeAll(async () => {
  system = await startSystem();
  workspace = await createWorkspace(system);
}, 60_000);
afterAll(() => system?.stop());

const WRITES = 1000;

/** The envelope fields this file touches (the outbox row's payload is the whole event). */
interface EventEnvelope {
  event_id: string;
  aggregate: { type: string; id: string; revision: number };
  [field: string]: unknown;
}

test('kill -9 of the statistics service in the middle of 1000 writes, then a restart: the replica equals the source', async () => {
  const board = await seedBoard(system, workspace, 'KILL', 10);
  const writer = startWriter(system, board, WRITES, 8);

  await until(() => writer.done() >= WRITES * 0.3, 60_000, 'the first writes');
  expect(await system.services.statistics.stop('SIGKILL')).toBeNull();
  // The writes go on with no consumer: events pile up in the durable queue.
  await until(() => writer.done() >= WRITES * 0.6, 60_000, 'writes while statistics is down');
  await restart(system, 'statistics', system.statisticsEnv);

  const statuses = await writer.finished;
  expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);
  await until(async () => (await outboxBacklog(system)) === 0, 20_000, 'the outbox to drain');

  const { source, replica } = await waitForReplica(system, 40_000);
  expect(source.issues.length).toBe(10 + WRITES / 4);
  expect(replica).toEqual(source);

  const stats = await system.api('POST', '/api/v1/statistics', { token: board.token, body: { queue_ids: [board.queueId] } });
  expect(stats.status).toBe(200);
  const inQueue = source.issues.filter((i) => i.queue_id === board.queueId);
  expect(stats.body.total).toBe(inQueue.length);
  expect(stats.body.time.spent_minutes).toBe(inQueue.reduce((sum, r) => sum + (r.spent_minutes as number), 0));
}, 150_000);

test('duplicated, reordered and poison events sent straight to the queue: the replica converges, poison is dead-lettered after bounded attempts', async () => {
  const outbox = `"${system.issuesSchema.schema}".outbox_events`;
  const [{ before }] = await system.issuesSchema.query<{ before: string }>(`SELECT coalesce(max(id), 0) AS before FROM ${outbox}`);
  const board = await seedBoard(system, workspace, 'REORD');
  expect(await system.services.statistics.stop('SIGTERM')).toBe(0);

  // The events of these writes pile up in the queue; then the queue is purged, and they
  // come back duplicated and out of order, with poison in between.
  const statuses = await startWriter(system, board, 60, 4).finished;
  expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);
  await until(async () => (await outboxBacklog(system)) === 0, 20_000, 'the outbox to drain');
  const rows = await system.issuesSchema.query<{ payload: EventEnvelope }>(`SELECT payload FROM ${outbox} WHERE id > $1 ORDER BY id`, [before]);
  const events = rows.map((r) => r.payload);
  expect(events.length).toBe(61); // queue.created and one per write

  const queue = system.serviceEnv.EVENTS_QUEUE;
  const connection = await connect(testAmqpUrl());
  try {
    const channel = await connection.createConfirmChannel();
    await channel.purgeQueue(queue);
    const wrongAggregate = { ...events[1]!, event_id: randomUUID(), aggregate: { ...events[1]!.aggregate, id: '2147483000' } };
    const poison = [
      { id: randomUUID(), content: Buffer.from('{"not json') },
      { id: randomUUID(), content: Buffer.from(JSON.stringify({ hello: 'not an event' })) },
      { id: wrongAggregate.event_id, content: Buffer.from(JSON.stringify(wrongAggregate)) },
    ];
    // Newest first (every older revision arrives after the newest), then twice more shuffled.
    const deliveries = [...[...events].reverse(), ...shuffled(events, 1), ...shuffled(events, 2)].map((e) => ({ id: e.event_id, content: Buffer.from(JSON.stringify(e)) }));
    deliveries.splice(30, 0, poison[0]!);
    deliveries.splice(90, 0, poison[1]!);
    deliveries.splice(5, 0, poison[2]!);
    // Signed by the issues service's key, as its relay signs them (the unparsable poison cannot be).
    const signed = (content: Buffer) => {
      const e = (() => {
        try {
          return JSON.parse(content.toString()) as { event_id?: unknown; type?: unknown };
        } catch {
          return null;
        }
      })();
      return e && typeof e.event_id === 'string' && typeof e.type === 'string' ? signedEventHeaders(system.keys.issues, { event_id: e.event_id, type: e.type }, content) : {};
    };
    for (const d of deliveries) channel.sendToQueue(queue, d.content, { persistent: true, contentType: 'application/json', messageId: d.id, headers: signed(d.content) });
    await channel.waitForConfirms();

    const maxAttempts = 3;
    const statistics = await restart(system, 'statistics', { ...system.statisticsEnv, EVENTS_MAX_ATTEMPTS: String(maxAttempts), EVENTS_RETRY_DELAY_MS: '200' });
    const { source, replica } = await waitForReplica(system);
    expect(replica).toEqual(source);

    const dead = `${queue}.dlq`;
    await until(async () => (await channel.checkQueue(dead)).messageCount === 3, 20_000, 'three dead letters');
    const deadIds: string[] = [];
    for (let msg = await channel.get(dead, { noAck: true }); msg; msg = await channel.get(dead, { noAck: true })) deadIds.push(msg.properties.messageId);
    expect(deadIds.sort()).toEqual(poison.map((p) => p.id).sort());

    // Bounded: unparsable messages never reach the handler; the refused event is tried
    // maxAttempts times, one retry delay apart. Still so after many more retry delays.
    await new Promise((r) => setTimeout(r, 2000));
    const linesAbout = (msg: string) => logLines(statistics, msg).map((l) => l.messageId);
    expect(linesAbout('poison message: not a valid event; dead-lettered').sort()).toEqual([poison[0]!.id, poison[1]!.id].sort());
    expect(linesAbout('event handler failed; will retry')).toEqual(Array(maxAttempts - 1).fill(wrongAggregate.event_id));
    expect(linesAbout('event handler failed on every attempt; dead-lettered')).toEqual([wrongAggregate.event_id]);
    expect((await channel.checkQueue(queue)).messageCount).toBe(0);
    expect((await channel.checkQueue(`${queue}.retry`)).messageCount).toBe(0);
    expect((await channel.checkQueue(dead)).messageCount).toBe(0);
  } finally {
    await connection.close();
  }
}, 90_000);

/** A deterministic shuffle (the same order on every run). */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

test('a rebuild from scratch by the operator command, while writes go on, ends identical to the source', async () => {
  const board = await seedBoard(system, workspace, 'REBUILD', 30);
  const rebuild = promisify(execFile)(process.execPath, ['dist/cli/rebuild.js'], {
    cwd: path.resolve(__dirname, '../../../services/statistics'),
    env: { PATH: process.env.PATH ?? '', ...system.statisticsEnv, LOG_LEVEL: 'silent' },
  });
  let writing = true;
  const writer = (async () => {
    const statuses: number[] = [];
    for (let i = 1; writing; i++) {
      const key = board.keys[i % board.keys.length];
      statuses.push((await system.api('PATCH', `/api/v1/issues/${key}`, { token: board.token, body: { title: `during ${i}` } })).status);
      statuses.push((await system.api('POST', `/api/v1/issues/${key}/worklogs`, { token: board.token, body: { minutes: 1 } })).status);
    }
    return statuses;
  })();
  const { stdout } = await rebuild;
  writing = false;
  const statuses = await writer;
  expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);
  expect(JSON.parse(stdout.trim().split('\n').pop()!)).toMatchObject({ completed: true });

  const { source, replica } = await waitForReplica(system);
  expect(replica).toEqual(source);
}, 90_000);
