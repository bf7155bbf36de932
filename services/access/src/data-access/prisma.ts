import { PrismaPg } from '@prisma/adapter-pg';
import { servicePoolConfig, type ServiceDatabase } from '@tracker/kit';
import { PrismaClient } from '../generated/prisma/client';

export type Db = PrismaClient;
/** The client inside an interactive transaction. */
export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/**
 * Prisma over node-postgres, in this service's own schema. The schema is also put
 * on the connection's search_path so raw SQL (row locks) finds the same tables, and every
 * statement is bounded (`statement_timeout`, DATABASE_STATEMENT_TIMEOUT_MS) as on the
 * other services' pools: servicePoolConfig.
 */
export function createDb(database: ServiceDatabase): Db {
  const adapter = new PrismaPg(servicePoolConfig(database), { schema: database.schema });
  return new PrismaClient({ adapter });
}
