import { Client } from 'pg';
import type { RebuildLock } from '../domain/ports';

/**
 * One rebuild at a time per replica (several service instances may start on an
 * empty replica, and an operator may run the command meanwhile): a Postgres session
 * advisory lock, on a connection of its own so it lives exactly as long as the
 * rebuild, and is released by the server if the process dies.
 */
export function rebuildLock(database: { url: string; schema: string }): RebuildLock {
  const url = new URL(database.url);
  url.searchParams.delete('schema');
  const name = `statistics.rebuild:${database.schema}`;
  let client: Client | null = null;

  const connect = async () => {
    if (client) return client;
    const c = new Client({ connectionString: url.toString() });
    c.on('error', () => undefined); // a lost connection drops the lock; the next query reports it
    await c.connect();
    client = c;
    return c;
  };
  const close = async () => {
    const c = client;
    client = null;
    await c?.end().catch(() => undefined);
  };

  return {
    async tryAcquire() {
      const c = await connect();
      const { rows } = await c.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [name]);
      if (!rows[0]?.locked) await close();
      return rows[0]?.locked ?? false;
    },
    async acquire() {
      const c = await connect();
      await c.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    },
    async release() {
      if (!client) return;
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]).catch(() => undefined);
      await close();
    },
  };
}
