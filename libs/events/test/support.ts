import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { Pool } from 'pg';
import { amqpTestNames, createTestSchema, issueStateFixture, testAmqpUrl, type AmqpTestNames, type TestSchema } from '@tracker/testing';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys } from '@tracker/signing';
import { buildEvent, OUTBOX_TABLE, outboxInsert, outboxTable, type EventEnvelope, type EventsLogger } from '../src';

/** The development keys: what each component signs with, and everyone's public keys. */
export const KEYS = {
  issues: devSigningKey('issues'),
  access: devSigningKey('access'),
  agent: devSigningKey('agent'),
  gateway: devSigningKey('gateway'),
  statistics: devSigningKey('statistics'),
};
export const TRUSTED = parseTrustedKeys(devTrustedKeysText());

export interface LogEntry {
  level: 'info' | 'warn' | 'error' | 'debug';
  msg: string;
  obj: Record<string, unknown>;
}

export function captureLogger(): EventsLogger & { entries: LogEntry[]; lines: (level: LogEntry['level'], pattern: RegExp) => LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (obj: Record<string, unknown>, msg = '') => void entries.push({ level, msg, obj });
  return {
    entries,
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    debug: at('debug'),
    lines: (level, pattern) => entries.filter((e) => e.level === level && pattern.test(e.msg)),
  };
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function userUpdated(userId = 9): EventEnvelope<'user.updated'> {
  return buildEvent({ type: 'user.updated', workspaceId: 1, aggregateId: userId, revision: 1, actorId: 5, data: { user: { id: userId, name: 'Ada', role: 'member', active: true } } });
}

let issueId = 0;
export function issueCreated(overrides: { requestId?: string | null; revision?: number } = {}): EventEnvelope<'issue.created'> {
  issueId += 1;
  const now = new Date().toISOString();
  return buildEvent({
    type: 'issue.created',
    workspaceId: 1,
    aggregateId: issueId,
    revision: overrides.revision ?? 1,
    actorId: 5,
    requestId: overrides.requestId ?? null,
    data: {
      issue: issueStateFixture({
        id: issueId,
        workspace_id: 1,
        queue_id: 2,
        key: `OPS-${issueId}`,
        title: `Issue ${issueId}`,
        status_id: 3,
        created_at: now,
        updated_at: now,
      }),
    },
  });
}

/** Inserts outbox rows the way a service does, in the transaction of `client` (or its own). */
export async function insertOutbox(db: { query: (sql: string, params?: unknown[]) => Promise<unknown> }, schema: string, events: EventEnvelope[]): Promise<void> {
  const insert = outboxInsert(events, outboxTable(schema));
  await db.query(insert.text, insert.values);
}

/**
 * A Postgres schema with the outbox table as OUTBOX_TABLE defines it, and a pool, per
 * test. The table is the only "migration" of that schema.
 */
export async function outboxDatabase(label: string): Promise<{ db: TestSchema; pool: Pool; close: () => Promise<void> }> {
  const db = await createTestSchema(label, outboxMigrationsDir());
  const pool = new Pool({ connectionString: db.databaseUrl, max: 6 });
  pool.on('error', () => undefined);
  return {
    db,
    pool,
    close: async () => {
      await pool.end();
      await db.drop();
    },
  };
}

let migrationsDir: string | undefined;
/** A migrations folder (createTestSchema's input) whose one migration is OUTBOX_TABLE.sql. */
function outboxMigrationsDir(): string {
  if (!migrationsDir) {
    migrationsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-migrations-'));
    fs.mkdirSync(path.join(migrationsDir, '0001_outbox_events'));
    fs.writeFileSync(path.join(migrationsDir, '0001_outbox_events', 'migration.sql'), OUTBOX_TABLE.sql);
  }
  return migrationsDir;
}

/** A direct broker connection for the test's own publishing, collecting and cleanup. */
export async function testBroker(label: string): Promise<{
  names: AmqpTestNames;
  connection: ChannelModel;
  channel: Channel;
  collect: (queue: string, pattern?: string) => Promise<ConsumeMessage[]>;
  close: () => Promise<void>;
}> {
  const names = amqpTestNames(label);
  const connection = await connect(testAmqpUrl());
  connection.on('error', () => undefined);
  const channel = await connection.createChannel();
  channel.on('error', () => undefined);
  await channel.assertExchange(names.exchange, 'topic', { durable: true });
  return {
    names,
    connection,
    channel,
    collect: async (queue, pattern = 'tracker.#') => {
      const received: ConsumeMessage[] = [];
      // Exclusive: gone with the connection, even if the test run dies.
      await channel.assertQueue(queue, { durable: false, exclusive: true });
      await channel.bindQueue(queue, names.exchange, pattern);
      await channel.consume(queue, (msg) => msg && received.push(msg), { noAck: true });
      return received;
    },
    close: async () => {
      await names.cleanup(channel);
      await connection.close();
    },
  };
}

export function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}
