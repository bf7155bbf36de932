import { Pool, type PoolClient, type QueryResultRow } from 'pg';
import { servicePoolConfig, type ServiceDatabase } from './database-errors';
import type { Logger } from './logger';
import type { SqlQuery } from './sql';

/**
 * The services run their queries on node-postgres; Prisma keeps the schemas and their
 * migrations. A query through Prisma 7's query engine cost 1-2 ms of CPU here against
 * 0.15 ms for a prepared pg statement (bench/README.md), on every read and write.
 */

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

/**
 * Runs `work` in one transaction on one pooled connection: COMMIT when it returns,
 * ROLLBACK when it throws. A connection that cannot even roll back is dropped from
 * the pool, not handed to the next request. How long a transaction may wait for row
 * locks or sit idle, and how long each statement may run, is bounded per connection
 * (servicePoolConfig); `statementTimeoutMs` sets another statement limit for this
 * transaction alone (work that legitimately runs long, such as a replica rebuild).
 */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
  options: { statementTimeoutMs?: number } = {},
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    if (options.statementTimeoutMs !== undefined) {
      // SET takes no parameters; the value is a whole number of milliseconds, never text.
      await client.query(`SET LOCAL statement_timeout = ${Math.max(0, Math.trunc(options.statementTimeoutMs))}`);
    }
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
  } finally {
    client.release(broken);
  }
}
