import type { Pool } from 'pg';
import { inTransaction, type Sql } from '@tracker/kit';
import type { Repositories, Store } from '../domain/ports';
import { cacheDebtsRepository } from './cache-debts.repository';
import { outboxRepository } from './outbox.repository';
import { permissionsRepository } from './permissions.repository';
import { queuesRepository } from './queues.repository';
import { sessionsRepository } from './sessions.repository';
import { setupLinksRepository } from './setup-links.repository';
import { tokensRepository } from './tokens.repository';
import { usersRepository } from './users.repository';
import { workspacesRepository } from './workspaces.repository';

function repositories(sql: Sql): Repositories {
  return {
    workspaces: workspacesRepository(sql),
    users: usersRepository(sql),
    tokens: tokensRepository(sql),
    sessions: sessionsRepository(sql),
    setupLinks: setupLinksRepository(sql),
    queues: queuesRepository(sql),
    permissions: permissionsRepository(sql),
    cacheDebts: cacheDebtsRepository(sql),
    outbox: outboxRepository(sql),
  };
}

/** The repositories over the pool, and the same ones inside one transaction. */
export function createStore(pool: Pool): Store {
  return {
    ...repositories(pool),
    transaction: (work) => inTransaction(pool, (client) => work(repositories(client))),
  };
}
