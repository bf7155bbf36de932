import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { inTransaction, servicePoolConfig, writeAtCommit } from '@tracker/kit';
import { createTestSchema, type TestSchema } from '@tracker/testing';
import { appendOutboxEvents, OUTBOX_TABLE } from '../src';
import { userUpdated } from './support';

/**
 * A change's outbox rows are written with its transaction's COMMIT (libs/kit
 * writeAtCommit), in the round trip of the COMMIT: the transaction still commits whole or
 * not at all.
 */
let db: TestSchema;
beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-at-commit-'));
  fs.mkdirSync(path.join(dir, '0001_tables'));
  fs.writeFileSync(path.join(dir, '0001_tables', 'migration.sql'), `${OUTBOX_TABLE.sql}\nCREATE TABLE changes (id int PRIMARY KEY);`);
  db = await createTestSchema('atcommit', dir);
});
afterAll(() => db.drop());

const counts = async () => (await db.query(`SELECT (SELECT count(*)::int FROM changes) AS changes, (SELECT count(*)::int FROM outbox_events) AS events`))[0];

describe('on a service pool (pipelined)', () => {
  let pool: Pool;
  beforeEach(async () => {
    await db.query('TRUNCATE changes, outbox_events');
    // One connection, so every transaction of a test runs on the same one.
    pool = new Pool(servicePoolConfig({ url: db.databaseUrl, schema: db.schema, poolMax: 1 }));
  });
  afterEach(() => pool.end());

  test('when a transaction appends events, then they are not written before its COMMIT and are after it, beside the change', async () => {
    const seenInside = await inTransaction(pool, async (client) => {
      await client.query('INSERT INTO changes VALUES (1)');
      await appendOutboxEvents(client, [userUpdated(1), userUpdated(2)]);
      return (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_events')).rows[0]!.n;
    });
    expect(seenInside).toBe(0);
    expect(await counts()).toEqual({ changes: 1, events: 2 });
  });

  test('when a write sent with the COMMIT fails, then inTransaction throws its error and nothing of the transaction is written', async () => {
    const event = userUpdated(1);
    // The same event twice: the outbox's unique event_id refuses the second row, at COMMIT.
    const failing = inTransaction(pool, async (client) => {
      await client.query('INSERT INTO changes VALUES (1)');
      await appendOutboxEvents(client, [event]);
      await appendOutboxEvents(client, [event]);
      return 'answered';
    });
    await expect(failing).rejects.toMatchObject({ code: '23505' });
    expect(await counts()).toEqual({ changes: 0, events: 0 });
    // The connection went back clean: the next transaction commits.
    await inTransaction(pool, (client) => client.query('INSERT INTO changes VALUES (2)'));
    expect(await counts()).toEqual({ changes: 1, events: 0 });
  });

  test('when work throws after appending, then neither the change nor the events are written', async () => {
    const failing = inTransaction(pool, async (client) => {
      await client.query('INSERT INTO changes VALUES (1)');
      await appendOutboxEvents(client, [userUpdated(1)]);
      throw new Error('refused');
    });
    await expect(failing).rejects.toThrow('refused');
    expect(await counts()).toEqual({ changes: 0, events: 0 });
  });

  test('when the first statement is sent with BEGIN, then it runs inside the transaction', async () => {
    const failing = inTransaction(pool, (client) => client.query('INSERT INTO changes VALUES (1)').then(() => Promise.reject(new Error('refused'))));
    await expect(failing).rejects.toThrow('refused');
    expect(await counts()).toEqual({ changes: 0, events: 0 });
    const shown = await inTransaction(pool, async (client) => (await client.query('SHOW statement_timeout')).rows[0], { statementTimeoutMs: 1234 });
    expect(shown).toEqual({ statement_timeout: '1234ms' });
  });

  test('when node-postgres refuses a write queued for the COMMIT before sending it, then no COMMIT is sent and nothing is written', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    for (const values of [[circular], 5 as unknown as unknown[]]) {
      const failing = inTransaction(pool, async (client) => {
        await client.query('INSERT INTO changes VALUES (1)');
        await writeAtCommit(client, { text: 'INSERT INTO changes VALUES ($1)', values });
      });
      await expect(failing).rejects.toThrow(/circular|must be an array/i);
      expect(await counts()).toEqual({ changes: 0, events: 0 });
    }
  });

  test('when the COMMIT is answered with ROLLBACK (work swallowed a failed statement), then inTransaction throws and nothing is written', async () => {
    const failing = inTransaction(pool, async (client) => {
      await client.query('INSERT INTO changes VALUES (1)');
      await client.query('SELECT 1 / 0').catch(() => undefined);
      return 'answered';
    });
    await expect(failing).rejects.toThrow('ended in ROLLBACK, not COMMIT');
    expect(await counts()).toEqual({ changes: 0, events: 0 });
  });

  test('when a transaction runs, then BEGIN leaves with its first statement and the COMMIT right behind the queued write, unanswered', async () => {
    const client = await pool.connect();
    const wire: string[] = [];
    const socket = client.connection.stream as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
    for (const method of ['_write', '_writev'] as const) {
      const original = socket[method]!.bind(socket);
      socket[method] = (...args: unknown[]) => (wire.push('sent'), original(...args));
    }
    client.connection.on('readyForQuery', () => wire.push('answered'));
    client.release();
    await inTransaction(pool, async (tx) => {
      await tx.query('INSERT INTO changes VALUES (1)');
      await appendOutboxEvents(tx, [userUpdated(1)]);
    });
    // BEGIN + INSERT in one write, two answers; the outbox row, then the COMMIT before its answer; two answers.
    expect(wire).toEqual(['sent', 'answered', 'answered', 'sent', 'sent', 'answered', 'answered']);
    expect(await counts()).toEqual({ changes: 1, events: 1 });
  });

  test('when a write is queued outside a transaction, then it runs at once', async () => {
    await writeAtCommit(pool, { text: 'INSERT INTO changes VALUES ($1)', values: [7] });
    await appendOutboxEvents(pool, [userUpdated(7)]);
    expect(await counts()).toEqual({ changes: 1, events: 1 });
  });
});

test('when the pool does not pipeline, then inTransaction refuses before sending anything and hands the connection back', async () => {
  await db.query('TRUNCATE changes, outbox_events');
  const plain = new Pool({ connectionString: db.databaseUrl, options: `-c search_path="${db.schema}"`, max: 1 });
  try {
    await expect(inTransaction(plain, (client) => client.query('INSERT INTO changes VALUES (1)'))).rejects.toThrow('pipelining pool');
    expect(await counts()).toEqual({ changes: 0, events: 0 });
    expect((await plain.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  } finally {
    await plain.end();
  }
});
