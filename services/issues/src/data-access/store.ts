import type { Pool } from 'pg';
import { idempotentRequests, inTransaction, runOnce, type Once, type Sql } from '@tracker/kit';
import { issueReadsRepository } from './issue-reads.repository';
import { issuesRepository } from './issues.repository';
import { outboxRepository } from './outbox.repository';
import { queuesRepository } from './queues.repository';
import { searchRepository } from './search.repository';
import type { Repositories, Store } from '../domain/ports';

function repositories(sql: Sql): Repositories {
  return {
    queues: queuesRepository(sql),
    issues: issuesRepository(sql),
    outbox: outboxRepository(sql),
  };
}

/** The repositories over the pool, the same ones inside one transaction, and the reads. */
export function createStore(pool: Pool): Store {
  return {
    ...repositories(pool),
    idempotentRequests: idempotentRequests(pool),
    reads: issueReadsRepository(pool),
    search: searchRepository(pool),
    /** One transaction; with `once` (an Idempotency-Key), claimed and answered inside it (libs/kit idempotency.ts). */
    transaction: <T>(work: (tx: Repositories) => Promise<T>, once?: Once<T>): Promise<T> =>
      inTransaction(pool, (client) => runOnce(client, once, () => work(repositories(client)))),
    /** Reads that must see one state of the database (a snapshot page's sizes and rows): REPEATABLE READ, read only. */
    snapshot: <T>(work: (tx: Repositories) => Promise<T>): Promise<T> =>
      inTransaction(pool, async (client) => {
        await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        return work(repositories(client));
      }),
  };
}
