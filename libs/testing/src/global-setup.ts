import { Client } from 'pg';
import { resolveInfra } from './infra';

/**
 * Runs once per jest run (and is a no-op for the next project of the same run):
 * finds the infrastructure, makes sure the test database exists, drops schemas
 * left by crashed runs, and hands the URLs to the test workers through the env.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.TRACKER_TEST_INFRA_READY) return;
  const infra = await resolveInfra();
  await ensureDatabase(infra.databaseUrl);
  await dropStaleSchemas(infra.databaseUrl);
  Object.assign(process.env, {
    TEST_DATABASE_URL: infra.databaseUrl,
    TEST_REDIS_URL: infra.redisUrl,
    TEST_AMQP_URL: infra.amqpUrl,
    TRACKER_TEST_INFRA_READY: infra.source,
  });
}

async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // created meanwhile by a parallel run
      });
    }
  } finally {
    await client.end();
  }
}

const STALE_AFTER_MS = 2 * 60 * 60 * 1000;

/** Test schemas carry their creation time (see database.ts); old ones are leftovers. */
async function dropStaleSchemas(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'");
    for (const { nspname } of rows) {
      const created = parseInt(nspname.split('_')[2] ?? '', 36);
      if (Number.isFinite(created) && Date.now() - created > STALE_AFTER_MS) {
        await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
      }
    }
  } finally {
    await client.end();
  }
}
