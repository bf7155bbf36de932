import type { Pool } from 'pg';
import { issueReadsRepository } from './issue-reads.repository';
import { issuesRepository } from './issues.repository';
import { outboxRepository } from './outbox.repository';
import { TRANSACTION_OPTIONS, type Client, type Db } from './prisma';
import { queuesRepository } from './queues.repository';
import { searchRepository } from './search.repository';

function repositories(c: Client) {
  return {
    queues: queuesRepository(c),
    issues: issuesRepository(c),
    outbox: outboxRepository(c),
  };
}

export type Repositories = ReturnType<typeof repositories>;

/** The repositories over the pool, the same ones inside one transaction, and the hot reads on plain pg. */
export function createStore(db: Db, pool: Pool) {
  return {
    ...repositories(db),
    reads: issueReadsRepository(pool),
    search: searchRepository(pool),
    transaction: <T>(work: (tx: Repositories) => Promise<T>): Promise<T> =>
      db.$transaction((tx) => work(repositories(tx)), TRANSACTION_OPTIONS),
  };
}

export type Store = ReturnType<typeof createStore>;
