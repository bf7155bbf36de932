import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface TestSchema {
  /** The database URL shared by every test file. */
  databaseUrl: string;
  /** This file's own schema; pass it to the service as DATABASE_SCHEMA. */
  schema: string;
  query: <T extends Record<string, unknown> = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>;
  drop: () => Promise<void>;
}

export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run tests through jest (its global setup finds the database).');
  return url;
}

/**
 * Gives a test file its own Postgres schema with a service's migrations applied,
 * so test files run in parallel without seeing each other's rows. The name
 * `t_<label>_<created base36>_<random>` lets the global setup drop leftovers.
 */
export async function createTestSchema(label: string, migrationsDir: string): Promise<TestSchema> {
  const databaseUrl = testDatabaseUrl();
  const schema = `t_${label.replace(/[^a-z0-9]/gi, '').toLowerCase()}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA "${schema}"`);
  await client.query(`SET search_path TO "${schema}"`);
  for (const name of fs.readdirSync(migrationsDir).filter((n) => /^\d+_/.test(n)).sort()) {
    await client.query(fs.readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8'));
  }
  return {
    databaseUrl,
    schema,
    query: async (sql, params) => (await client.query(sql, params)).rows,
    drop: async () => {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}
