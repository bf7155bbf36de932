import type { Pool } from 'pg';
import { idempotentRequests, inTransaction, runOnce, type Once, type Sql } from '@tracker/kit';
import type { ReplicaStore, Repositories, Store } from '../domain/ports';
import { dashboardsRepository } from './dashboards.repository';
import { replicaReadsRepository } from './replica-reads.repository';
import { replicaWritesRepository } from './replica-writes.repository';

function repositories(sql: Sql): Repositories {
  return {
    dashboards: dashboardsRepository(sql),
  };
}

/**
 * The replica's writes in their transactions. Bulk transactions (a rebuild's pages and its
 * reset) run with `bulkStatementTimeoutMs` instead of the pool's per-statement limit, so a
 * rebuild of a large replica is not cut by the limit that bounds requests and events.
 */
function replicaStore(pool: Pool, bulkStatementTimeoutMs: number | undefined): ReplicaStore {
  const bulk = { statementTimeoutMs: bulkStatementTimeoutMs };
  const overPool = replicaWritesRepository(pool);
  return {
    transaction: (work, { bulk: isBulk = false } = {}) => inTransaction(pool, (client) => work(replicaWritesRepository(client)), isBulk ? bulk : {}),
    reset: () => inTransaction(pool, (client) => replicaWritesRepository(client).clear(), bulk),
    isBuilt: overPool.isBuilt,
    markBuilt: overPool.markBuilt,
  };
}

/** The repositories over the pool, the same ones inside one transaction, and the replica's reads and writes. */
export function createStore(pool: Pool, options: { bulkStatementTimeoutMs?: number } = {}): Store {
  return {
    ...repositories(pool),
    idempotentRequests: idempotentRequests(pool),
    replicaReads: replicaReadsRepository(pool),
    replicaWrites: replicaStore(pool, options.bulkStatementTimeoutMs),
    /** One transaction; with `once` (an Idempotency-Key), claimed and answered inside it (libs/kit idempotency.ts). */
    transaction: <T>(work: (tx: Repositories) => Promise<T>, once?: Once<T>): Promise<T> =>
      inTransaction(pool, (client) => runOnce(client, once, () => work(repositories(client)))),
  };
}
