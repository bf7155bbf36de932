import { Pool, type PoolClient, type QueryConfig, type QueryResult, type QueryResultRow } from 'pg';
import { z } from 'zod';
import { sentTogether } from './internals';
import type { Logger } from './logger';
import type { SqlQuery } from './sql';

/**
 * The services run their queries on node-postgres; Prisma keeps the schemas and their
 * migrations. A query through Prisma 7's query engine cost 1-2 ms of CPU here against
 * 0.15 ms for a prepared pg statement (bench/README.md), on every read and write.
 */

/** How long a request waits for a pool connection before it answers 503 (never a hung request). */
export const POOL_CONNECT_TIMEOUT_MS = 5000;

/** Longest wait for a row lock; past it the request answers 503 and the client may retry. */
export const LOCK_TIMEOUT_MS = 10_000;
/** A transaction left idle this long (a stuck request) is ended by the server, releasing its locks. */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 20_000;
/**
 * Longest a single statement may run (its lock waits included) before the server cancels
 * it (57014 query_canceled: 503 with Retry-After, the transaction rolled back). Every
 * request's statements are bounded, whatever the data a tenant has piled up; work that
 * legitimately runs longer (a replica rebuild) raises it for its own transactions
 * (`SET LOCAL statement_timeout`). Env `DATABASE_STATEMENT_TIMEOUT_MS`.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;

/** `DATABASE_STATEMENT_TIMEOUT_MS` of a service config: 100 ms to 10 minutes. */
export const statementTimeoutEnv = () => z.coerce.number().int().min(100).max(600_000).default(DEFAULT_STATEMENT_TIMEOUT_MS);

export interface ServiceDatabase {
  url: string;
  schema: string;
  poolMax: number;
  /** Per statement; DEFAULT_STATEMENT_TIMEOUT_MS when absent. */
  statementTimeoutMs?: number;
}

/**
 * node-postgres pool settings of a service's own schema: the schema on the search_path
 * (raw SQL finds the same tables as Prisma), a bounded wait for a free connection, and
 * bounded lock waits, statements and idle transactions on every connection.
 */
export function servicePoolConfig(database: ServiceDatabase) {
  const url = new URL(database.url);
  url.searchParams.delete('schema');
  const statementTimeoutMs = Math.trunc(database.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS);
  return {
    connectionString: url.toString(),
    max: database.poolMax,
    options:
      `-c search_path="${database.schema}" -c lock_timeout=${LOCK_TIMEOUT_MS} ` +
      `-c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT_MS} -c statement_timeout=${statementTimeoutMs}`,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    // Statements sent without awaiting the one before go out at once (inTransaction's BEGIN and COMMIT).
    pipeline: true,
  };
}

/** The pool, or one connection inside a transaction: repositories work over either. */
export type Sql = Pool | PoolClient;

/**
 * The pool of a service's schema (search_path set per connection, bounded waits and
 * statements: servicePoolConfig). An idle connection the server drops (restart,
 * administrator) is logged and replaced: without a listener its 'error' event would end
 * the process.
 */
export function createPool(database: ServiceDatabase, logger: Pick<Logger, 'warn'>): Pool {
  const pool = new Pool(servicePoolConfig(database));
  pool.on('error', (err) => logger.warn({ err }, 'an idle database connection was lost; the pool opens a new one when needed'));
  return pool;
}

/**
 * /readyz's check of a service's own database (createServiceApp's `readiness`): ready while
 * the pool answers a trivial query. Every service with a database checks that and no more.
 */
export function databaseReadiness(pool: Pool): { database: () => Promise<unknown> } {
  return { database: () => pool.query('SELECT 1') };
}

/**
 * Closes what a service with a database holds open, once its last request is done: its
 * Redis connection, then its pool (closing twice is harmless).
 */
export async function closeConnections(redis: { disconnect(): void }, pool: Pool): Promise<void> {
  redis.disconnect();
  if (!pool.ended) await pool.end();
}

/**
 * A named (prepared) statement: parsed and planned once per connection, then only
 * bound and executed. For the statements every request runs.
 */
export async function prepared<R extends QueryResultRow>(db: Sql, name: string, text: string, values: unknown[]): Promise<R[]> {
  return (await db.query<R>({ name, text, values })).rows;
}

/** A statement built with the `sql` tag (sql.ts): its rows. */
export async function rowsOf<R extends QueryResultRow>(db: Sql, query: SqlQuery): Promise<R[]> {
  return (await db.query<R>(query.text, query.values)).rows;
}

/** A statement built with the `sql` tag (sql.ts): how many rows it wrote. */
export async function rowCountOf(db: Sql, query: SqlQuery): Promise<number> {
  return (await db.query(query.text, query.values)).rowCount ?? 0;
}

/** The writes each open transaction sends with its COMMIT (writeAtCommit), by its connection. */
const commitWrites = new WeakMap<object, QueryConfig[]>();

/**
 * A write that nothing in its transaction reads back (the change's outbox rows, an
 * idempotent request's stored answer). Inside inTransaction it is sent with the COMMIT,
 * in the same round trip; if it fails, Postgres answers that COMMIT with a ROLLBACK and
 * inTransaction throws the write's error, so the transaction still commits whole or not
 * at all. Anywhere else it runs at once.
 */
export async function writeAtCommit(db: { query(statement: QueryConfig): Promise<unknown> }, statement: QueryConfig): Promise<void> {
  const queued = commitWrites.get(db);
  if (queued) queued.push(statement);
  else await db.query(statement);
}

/**
 * Runs `work` in one transaction on one pooled connection: COMMIT when it returns,
 * ROLLBACK when it throws. A connection that cannot even roll back is dropped from
 * the pool, not handed to the next request. How long a transaction may wait for row
 * locks or sit idle, and how long each statement may run, is bounded per connection
 * (servicePoolConfig); `statementTimeoutMs` sets another statement limit for this
 * transaction alone (work that legitimately runs long, such as a replica rebuild).
 *
 * The pool must pipeline, as servicePoolConfig's do: BEGIN leaves in one write with the
 * statements `work` sends before its first await, and the writes queued by writeAtCommit
 * go out followed at once by the COMMIT, so neither costs a round trip of its own. A BEGIN
 * on an idle connection fails only when the connection does, and then so does all sent
 * after it.
 */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
  options: { statementTimeoutMs?: number } = {},
): Promise<T> {
  const client = await pool.connect();
  if (!client.pipeline) {
    client.release();
    throw new Error('inTransaction needs a pipelining pool (servicePoolConfig)');
  }
  const atCommit: QueryConfig[] = [];
  commitWrites.set(client, atCommit);
  let broken: Error | undefined;
  try {
    const [begun, worked] = await Promise.allSettled(
      sentTogether(client, () => {
        const begin = client.query('BEGIN');
        // SET takes no parameters; the value is a whole number of milliseconds, never text.
        const limit = options.statementTimeoutMs === undefined ? null : client.query(`SET LOCAL statement_timeout = ${Math.max(0, Math.trunc(options.statementTimeoutMs))}`);
        return [Promise.all([begin, limit]), (async () => work(client))()] as const;
      }),
    );
    if (begun.status === 'rejected') throw begun.reason;
    if (worked.status === 'rejected') throw worked.reason;
    const writes = sentTogether(client, () => atCommit.splice(0).map((s) => client.query(s)));
    // A write node-postgres refused before sending it (a value it cannot convert, a name
    // reused for another text) never failed in Postgres, so the COMMIT would commit
    // without it: such refusals come by the next turn of the event loop, before the COMMIT goes.
    const refusal = await firstRefusal(writes);
    if (refusal) throw refusal.error;
    const ending = await Promise.allSettled([...writes, client.query('COMMIT')]);
    const failed = ending.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const commit = ending.at(-1) as PromiseFulfilledResult<QueryResult>;
    if (commit.value.command !== 'COMMIT') throw new Error(`the transaction ended in ${commit.value.command}, not COMMIT`);
    return worked.value;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
  } finally {
    commitWrites.delete(client);
    client.release(broken);
  }
}

/** The first of `writes` rejected by the next turn of the event loop, if any (they are not waited for). */
async function firstRefusal(writes: Promise<unknown>[]): Promise<{ error: unknown } | null> {
  if (writes.length === 0) return null;
  let refusal: { error: unknown } | null = null;
  for (const write of writes) write.catch((error: unknown) => (refusal ??= { error }));
  await new Promise((resolve) => setImmediate(resolve));
  return refusal;
}
