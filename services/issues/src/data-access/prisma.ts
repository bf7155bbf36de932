import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { servicePoolConfig } from '@tracker/kit';
import { PrismaClient, type Prisma } from '../generated/prisma/client';

export type Db = PrismaClient;
/** The main client or one inside a transaction: repositories work over either. */
export type Client = Db | Prisma.TransactionClient;

/**
 * Prisma over a node-postgres pool, in this service's own schema. The schema is also
 * put on the connection's search_path so raw SQL (row locks, search, the issue reads
 * that bypass Prisma on the same pool) finds the same tables.
 */
export function createDb(database: { url: string; schema: string; poolMax: number }): { db: Db; pool: Pool } {
  const pool = new Pool(servicePoolConfig(database));
  return { db: new PrismaClient({ adapter: new PrismaPg(pool, { schema: database.schema }) }), pool };
}

/**
 * Interactive transactions wait for a pooled connection and for row locks (many
 * concurrent writes to one issue or queue queue up behind each other), and one of
 * them calls the access service; the defaults (2 s / 5 s) are too tight for that.
 */
export const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 20_000 } as const;
