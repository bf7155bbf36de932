import { randomInt } from 'node:crypto';
import { connect, type ChannelModel } from 'amqplib';
import type { Client } from 'pg';
import { startSystem, waitForReplica, type System } from '@tracker/system-tests-support';
import { testAmqpUrl } from '@tracker/testing';
import { createWorkspace, issuesEnv, outboxBacklog, restart, seedBoard, sqlSession, startWriter, until } from './events-support';

/**
 * The publishing side of "nothing lost, nothing doubled": the issues service's outbox
 * relay killed between the broker's confirm and the commit that marks the row sent, and
 * an outbox transaction that commits long after hundreds of later ones. The moments are
 * made exact with triggers in this system's own issues schema that wait on an advisory
 * lock the test holds (no test hook in the product).
 */
let system: System;
let tap: { connection: ChannelModel; seen: Map<string, number> };
let outbox: string;
let workspace: { workspaceId: number; token: string };
beforeAll(async () => {
  // The held request of the second test outlives the gateway's default upstream timeout.
  system = await startSystem({ gatewayEnv: { UPSTREAM_TIMEOUT_MS: '60000' } });
  outbox = `"${system.issuesSchema.schema}".outbox_events`;
  // Every message the system's exchange routes, counted by message id (= event id).
  const connection = await connect(testAmqpUrl());
  const channel = await connection.createChannel();
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(queue, system.serviceEnv.EVENTS_EXCHANGE, 'tracker.#');
  const seen = new Map<string, number>();
  await channel.consume(queue, (msg) => {
      if (msg) seen.set(String(msg.properties.messageId), (seen.get(String(msg.properties.messageId)) ?? 0) + 1);
    }, { noAck: true });
  tap = { connection, seen };
  workspace = await createWorkspace(system);
}, 60_000);
afterAll(async () => {
  await tap?.connection.close();
  await system?.stop();
});

/** A trigger on the outbox that waits for the advisory lock `key` (shared) when `when` holds. */
async function installHold(name: string, timing: 'BEFORE UPDATE' | 'AFTER INSERT', when: string, key: number): Promise<() => Promise<void>> {
  const schema = `"${system.issuesSchema.schema}"`;
  await system.issuesSchema.query(`
    CREATE FUNCTION ${schema}.${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(${key});
      RETURN NEW;
    END $$`);
  await system.issuesSchema.query(`CREATE TRIGGER ${name} ${timing} ON ${outbox} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${schema}.${name}()`);
  return async () => {
    await system.issuesSchema.query(`DROP TRIGGER ${name} ON ${outbox}`);
    await system.issuesSchema.query(`DROP FUNCTION ${schema}.${name}()`);
  };
}

/** Backends waiting for the advisory lock `key` (a bigint key below 2^31: classid 0, objid = key). */
async function waitingOnAdvisoryLock(session: Client, key: number): Promise<number[]> {
  const { rows } = await session.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND classid = 0 AND objid = $1 AND objsubid = 1`,
    [key],
  );
  return rows.map((r) => r.pid);
}

test('kill -9 of the issues service between the broker confirm and marking the outbox row: the event is published again, applied once', async () => {
  const board = await seedBoard(system, workspace, 'CONFIRM', 1);
  await until(async () => (await outboxBacklog(system)) === 0, 20_000, 'the outbox to drain');
  const key = randomInt(1, 2 ** 31);
  const dropHold = await installHold('hold_outbox_marking', 'BEFORE UPDATE', 'OLD.published_at IS NULL AND NEW.published_at IS NOT NULL', key);
  const session = await sqlSession(system);
  try {
    await session.query('SELECT pg_advisory_lock($1)', [key]);
    const worklog = await system.api('POST', `/api/v1/issues/${board.keys[0]}/worklogs`, { token: board.token, body: { minutes: 45 } });
    expect(worklog.status).toBe(201);
    const [row] = await system.issuesSchema.query<{ id: string; event_id: string; type: string }>(`SELECT id, event_id, type FROM ${outbox} WHERE published_at IS NULL`);
    expect(row).toMatchObject({ type: 'worklog.added' });

    // The broker confirmed the message (the marking runs only after every confirm) and
    // routed it; the relay's transaction now waits in the marking UPDATE.
    let relayBackend: number[] = [];
    await until(async () => {
      relayBackend = await waitingOnAdvisoryLock(session, key);
      return relayBackend.length === 1 && tap.seen.get(row!.event_id) === 1;
    }, 20_000, 'the confirmed publish and the held marking');
    expect(await system.services.issues.stop('SIGKILL')).toBeNull();
    await session.query('SELECT pg_advisory_unlock($1)', [key]);
    // The orphaned transaction ends with its client gone: rolled back, never committed.
    await until(async () => (await session.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [relayBackend[0]])).rowCount === 0, 20_000, 'the killed relay session to end');
    const [afterKill] = await system.issuesSchema.query(`SELECT published_at, attempts FROM ${outbox} WHERE id = $1`, [row!.id]);
    expect(afterKill).toEqual({ published_at: null, attempts: 0 });

    await restart(system, 'issues', issuesEnv(system));
    await until(async () => (await outboxBacklog(system)) === 0, 20_000, 'the restarted relay to publish the row again');
    await until(() => tap.seen.get(row!.event_id) === 2, 10_000, 'the second copy of the event');
    const [marked] = await system.issuesSchema.query(`SELECT attempts FROM ${outbox} WHERE id = $1`, [row!.id]);
    expect(marked).toEqual({ attempts: 1 });

    const { source, replica } = await waitForReplica(system);
    expect(replica).toEqual(source);
    expect(source.issues.find((i) => i.key === board.keys[0])).toMatchObject({ spent_minutes: 45 });
  } finally {
    await session.end();
    await dropHold();
  }
}, 90_000);

test('an outbox transaction held open while 200 later ones commit: its event is still published and applied', async () => {
  const held = await seedBoard(system, workspace, 'HELD');
  const busy = await seedBoard(system, workspace, 'BUSY', 8);
  const marker = `held-${randomInt(1e9)}`;
  const key = randomInt(1, 2 ** 31);
  const dropHold = await installHold('hold_outbox_insert', 'AFTER INSERT', `NEW.payload::text LIKE '%${marker}%'`, key);
  const session = await sqlSession(system);
  try {
    await session.query('SELECT pg_advisory_lock($1)', [key]);
    const heldRequest = system.api('POST', '/api/v1/issues', { token: held.token, body: { queue_id: held.queueId, title: marker } });
    // Its outbox row exists (id taken) in a transaction that has not committed.
    await until(async () => (await waitingOnAdvisoryLock(session, key)).length === 1, 20_000, 'the held outbox insert');

    const statuses = await startWriter(system, busy, 200, 8).finished;
    expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);
    await until(async () => (await outboxBacklog(system)) === 0, 20_000, 'every committed row to be published');
    const [{ max_id }] = await system.issuesSchema.query<{ max_id: string }>(`SELECT max(id) AS max_id FROM ${outbox}`);

    await session.query('SELECT pg_advisory_unlock($1)', [key]);
    const created = await heldRequest;
    expect(created.status).toBe(201);
    const [row] = await system.issuesSchema.query<{ id: string; event_id: string }>(`SELECT id, event_id FROM ${outbox} WHERE payload::text LIKE $1`, [`%${marker}%`]);
    // Hundreds of rows with higher ids were published before this one became visible.
    const [{ later }] = await system.issuesSchema.query<{ later: string }>(`SELECT count(*) AS later FROM ${outbox} WHERE id > $1 AND id <= $2`, [row!.id, max_id]);
    expect(Number(later)).toBeGreaterThanOrEqual(200);

    await until(() => tap.seen.get(row!.event_id) === 1, 20_000, 'the late event on the exchange');
    const { source, replica } = await waitForReplica(system);
    expect(replica).toEqual(source);
    expect(replica.issues.find((i) => i.key === created.body.key)).toMatchObject({ title: marker });
  } finally {
    await session.end();
    await dropHold();
  }
}, 90_000);
