import { PrismaPg } from '@prisma/adapter-pg';
import { servicePoolConfig } from '@tracker/kit';
import { PrismaClient } from '../generated/prisma/client';

export type Db = PrismaClient;
/** The client inside an interactive transaction. */
export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/**
 * Prisma over node-postgres, in this service's own schema. The schema is also put
 * on the connection's search_path so raw SQL (row locks) finds the same tables.
 */
export function createDb(database: { url: string; schema: string; poolMax: number }): Db {
  const adapter = new PrismaPg(servicePoolConfig(database), { schema: database.schema });
  return new PrismaClient({ adapter });
}
