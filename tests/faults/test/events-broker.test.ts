import { startSystem, waitForReplica, type ServiceProcess, type System } from '@tracker/system-tests-support';
import { startPrivateBroker, type PrivateBroker } from '@tracker/testing';
import { createWorkspace, failureLines, logLines, outboxBacklog, seedBoard, startWriter, until, type Board } from './events-support';

/**
 * The broker goes away while writes go on: stopped and started, every connection
 * force-closed (three times), the network path cut, and the broker frozen (SIGSTOP) past
 * the heartbeat. A private RabbitMQ node, so the shared broker of the other test files is
 * never touched; a 2 s heartbeat, so a frozen broker is noticed within seconds.
 *
 * After each outage: every write answered 2xx, each of the three broker clients (access
 * and issues outbox relays, statistics consumer) lost its connection once and reconnected
 * once, both outboxes drained, and the replica equals the source row by row. After all of
 * them: no error log line, no uncaught exception, every process still running.
 */
let broker: PrivateBroker;
let system: System;
let board: Board;
beforeAll(async () => {
  broker = await startPrivateBroker();
  system = await startSystem({ amqpUrl: `${broker.url}?heartbeat=2` });
  board = await seedBoard(system, await createWorkspace(system), 'BRK', 10);
}, 90_000);
afterAll(async () => {
  await system?.stop();
  await broker?.stop();
});

interface Client {
  label: string;
  service: () => ServiceProcess;
  lost: string;
  reconnected: string;
}
const RELAY = { lost: 'outbox relay lost the broker connection; reconnecting', reconnected: 'outbox relay reconnected to the broker' };
const CLIENTS: Client[] = [
  { label: 'access outbox relay', service: () => system.services.access, ...RELAY },
  { label: 'issues outbox relay', service: () => system.services.issues, ...RELAY },
  {
    label: 'statistics consumer',
    service: () => system.services.statistics,
    lost: 'consumer lost the broker connection; reconnecting',
    reconnected: 'consumer reconnected to the broker',
  },
];
const counts = (msg: 'lost' | 'reconnected') => Object.fromEntries(CLIENTS.map((c) => [c.label, logLines(c.service(), c[msg]).length]));
const all = (n: number) => Object.fromEntries(CLIENTS.map((c) => [c.label, n]));
let outages = 0;

/** Writes go on through `outage` (which starts and ends one broker outage); then everything must have recovered. */
async function survive(outage: (lostByAll: () => Promise<void>) => Promise<void>): Promise<void> {
  const writer = startWriter(system, board, Infinity, 3);
  await until(() => writer.done() >= 5, 20_000, 'the writer to start');
  outages += 1;
  const lostByAll = () => until(() => Object.values(counts('lost')).every((n) => n >= outages), 20_000, 'every client to notice the outage');
  await outage(lostByAll);
  await until(() => Object.values(counts('reconnected')).every((n) => n >= outages), 30_000, 'every client to reconnect');
  const reached = writer.done();
  await until(() => writer.done() >= reached + 5, 20_000, 'writes after the outage');
  writer.stop();
  const statuses = await writer.finished;
  expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);

  await until(async () => (await outboxBacklog(system, 'issues')) + (await outboxBacklog(system, 'access')) === 0, 30_000, 'both outboxes to drain');
  const { source, replica } = await waitForReplica(system);
  expect(replica).toEqual(source);
  // Exactly one loss and one reconnection per client per outage: no reconnect storms.
  expect(counts('lost')).toEqual(all(outages));
  expect(counts('reconnected')).toEqual(all(outages));
}

test('the broker application stopped and started again', async () => {
  await survive(async (lostByAll) => {
    await broker.stopApp();
    await lostByAll();
    await broker.startApp();
  });
}, 90_000);

test('every connection force-closed by the broker, three times over', async () => {
  for (let round = 0; round < 3; round++) {
    await survive(async (lostByAll) => {
      await broker.closeAllConnections();
      await lostByAll();
    });
  }
}, 90_000);

test('the network path to the broker cut and restored', async () => {
  await survive(async (lostByAll) => {
    await system.amqpRelay.cut();
    await lostByAll();
    await system.amqpRelay.restore();
  });
}, 90_000);

test('the broker frozen (SIGSTOP) past the heartbeat, then resumed', async () => {
  await survive(async (lostByAll) => {
    broker.pause();
    try {
      // Nothing closes the connections: only the missing heartbeats tell the clients.
      await lostByAll();
    } finally {
      broker.resume();
    }
  });
}, 90_000);

test('no service logged an error or an uncaught exception, and none exited', () => {
  for (const service of Object.values(system.services)) {
    expect({ service: service.name, exitCode: service.child.exitCode, failures: failureLines(service) }).toEqual({ service: service.name, exitCode: null, failures: [] });
  }
});
