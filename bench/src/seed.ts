/**
 * The benchmark database: its own database (tracker_bench), one schema per service
 * with the services' migrations, and the seeded workspace. Issues, comments,
 * worklogs and history are inserted by SQL (generate_series), and the statistics
 * replica is copied from them by SQL, so seeding 100,000 issues takes seconds, not
 * an hour of API calls. A seeded database is reused by later runs of the same size.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const SCHEMAS = { access: 'bench_access', issues: 'bench_issues', statistics: 'bench_stats' } as const;

/** Words of titles and comments: word i appears in about 1/WORDS.length of the issues. */
export const WORDS = Array.from({ length: 200 }, (_, i) => `w${i.toString(36)}${'kmrtxz'[i % 6]}`);

/**
 * VACUUM (ANALYZE) of the bench's database: the state autovacuum keeps a production
 * database in. Where autovacuum is off (this machine's Postgres runs with `autovacuum =
 * off` for CI), a seeded or written-to database otherwise keeps its GIN indexes' pending
 * lists unmerged and its visibility map empty: the search's plan then scanned every
 * comment instead of their text index, 26 ms against 3.9 ms at 100k issues.
 */
export async function vacuumDatabase(db: Client): Promise<void> {
  await db.query('VACUUM (ANALYZE)');
}

export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
}

/**
 * The notifications service's schema: its event log holds only what a run writes, so it is
 * made afresh on every run (resetNotificationsSchema), seeded or not.
 */
export const NOTIFICATIONS_SCHEMA = 'bench_notifications';

/** Drops and re-creates a service's schema with its migrations. */
async function resetSchema(db: Client, service: string, schema: string): Promise<void> {
  await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await db.query(`CREATE SCHEMA "${schema}"`);
  await db.query(`SET search_path TO "${schema}"`);
  const dir = path.join(REPO_ROOT, 'services', service, 'prisma/migrations');
  for (const name of fs.readdirSync(dir).filter((n) => /^\d+_/.test(n)).sort()) {
    await db.query(fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8'));
  }
  await db.query('SET search_path TO public');
}

export const resetNotificationsSchema = (db: Client) => resetSchema(db, 'notifications', NOTIFICATIONS_SCHEMA);

/** Drops and re-creates the three schemas with the services' migrations. */
export async function resetSchemas(db: Client): Promise<void> {
  for (const [service, schema] of Object.entries(SCHEMAS)) await resetSchema(db, service, schema);
  await db.query('CREATE TABLE IF NOT EXISTS public.bench_meta (id int PRIMARY KEY, issues int NOT NULL, workspace_id int NOT NULL, user_id int NOT NULL, token text NOT NULL)');
  await db.query('TRUNCATE public.bench_meta');
}

export interface Seeded {
  issues: number;
  workspaceId: number;
  userId: number;
  token: string;
}

export async function readSeeded(db: Client): Promise<Seeded | null> {
  const table = await db.query("SELECT to_regclass('public.bench_meta') AS t");
  if (!table.rows[0].t) return null;
  const rows = await db.query('SELECT issues, workspace_id, user_id, token FROM public.bench_meta WHERE id = 1');
  const r = rows.rows[0];
  return r ? { issues: r.issues, workspaceId: r.workspace_id, userId: r.user_id, token: r.token } : null;
}

export async function writeSeeded(db: Client, s: Seeded): Promise<void> {
  await db.query('INSERT INTO public.bench_meta (id, issues, workspace_id, user_id, token) VALUES (1, $1, $2, $3, $4)', [s.issues, s.workspaceId, s.userId, s.token]);
}

/**
 * `count` issues spread evenly over the workspace's queues (made through the API
 * before, so the access service knows them), each with two comments, one worklog
 * and its creation history entry; then the replica copied from them.
 */
export async function seedIssues(db: Client, workspaceId: number, userId: number, count: number): Promise<void> {
  const I = SCHEMAS.issues;
  const S = SCHEMAS.statistics;
  const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(',')}]`;
  await db.query(`SET search_path TO "${I}"`);
  // Bulk load: one transaction, and the workspace's statuses numbered per queue.
  await db.query('BEGIN');
  await db.query(`
    CREATE TEMP TABLE q ON COMMIT DROP AS
    SELECT row_number() OVER (ORDER BY id) - 1 AS idx, id, key,
           (SELECT array_agg(id ORDER BY position) FROM statuses s WHERE s.queue_id = queues.id) AS status_ids
    FROM queues WHERE workspace_id = ${workspaceId}`);
  const queues = Number((await db.query('SELECT count(*) AS n FROM q')).rows[0].n);
  await db.query(`
    INSERT INTO issues (workspace_id, queue_id, number, key, title, description, status_id, position, assignee_id,
                        priority, type, labels, estimate_minutes, spent_minutes, created_by, created_at, updated_at)
    SELECT ${workspaceId}, q.id, (g / ${queues}) + 1, q.key || '-' || ((g / ${queues}) + 1),
           (${words})[1 + g % 200] || ' ' || (${words})[1 + (g / 200) % 200] || ' fails on page ' || (g % 997),
           'Steps: open the page, click ' || (${words})[1 + (g * 7) % 200] || '. Expected it to work.',
           q.status_ids[1 + (g / 7) % array_length(q.status_ids, 1)],
           (g / ${queues}) + 1,
           CASE WHEN g % 5 = 0 THEN NULL ELSE ${userId} END,
           (ARRAY['low','normal','high','critical']::issue_priority[])[1 + (g / 3) % 4],
           'task', ARRAY['l' || (g % 10)], 60 * (g % 8), 30 * (g % 3), ${userId},
           now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval
    FROM generate_series(0, ${count - 1}) AS g JOIN q ON q.idx = g % ${queues}`);
  await db.query(`UPDATE queues SET issue_counter = (SELECT max(number) FROM issues WHERE queue_id = queues.id) WHERE workspace_id = ${workspaceId}`);
  await db.query(`
    INSERT INTO comments (issue_id, author_id, body, created_at)
    SELECT i.id, ${userId}, 'Seen again with ' || (${words})[1 + (i.id * 13 + c) % 200] || ' on build ' || c, i.created_at
    FROM issues i CROSS JOIN generate_series(1, 2) AS c WHERE i.workspace_id = ${workspaceId}`);
  await db.query(`
    INSERT INTO worklogs (issue_id, author_id, minutes, description, created_at)
    SELECT i.id, ${userId}, 30 * (1 + i.id % 3), 'work', i.created_at FROM issues i WHERE i.workspace_id = ${workspaceId}`);
  await db.query(`
    INSERT INTO issue_history (issue_id, field, actor_id, at)
    SELECT i.id, 'created', ${userId}, i.created_at FROM issues i WHERE i.workspace_id = ${workspaceId}`);
  await db.query('COMMIT');
  await db.query('ANALYZE');

  // The replica: what a rebuild from the snapshot would write.
  await db.query(`SET search_path TO "${S}"`);
  await db.query('BEGIN');
  await db.query(`
    INSERT INTO queues (id, workspace_id, key, name, description, revision, created_at, updated_at)
    SELECT id, workspace_id, key, name, description, revision, created_at, updated_at FROM "${I}".queues
    ON CONFLICT (id) DO NOTHING`);
  await db.query(`
    INSERT INTO statuses (id, queue_id, name, category, position)
    SELECT id, queue_id, name, category::text::status_category, position FROM "${I}".statuses ON CONFLICT (id) DO NOTHING`);
  await db.query(`
    INSERT INTO issues (id, workspace_id, queue_id, key, title, description, status_id, status_category, assignee_id, parent_id,
                        priority, type, labels, due_date, estimate_minutes, spent_minutes, version, revision, created_at, updated_at)
    SELECT i.id, i.workspace_id, i.queue_id, i.key, i.title, i.description, i.status_id, s.category::text::status_category, i.assignee_id,
           i.parent_id, i.priority::text::issue_priority, i.type, i.labels, i.due_date, i.estimate_minutes, i.spent_minutes, i.version,
           i.revision, i.created_at, i.updated_at
    FROM "${I}".issues i JOIN "${I}".statuses s ON s.id = i.status_id ON CONFLICT (id) DO NOTHING`);
  await db.query(`INSERT INTO comments (id, issue_id, body) SELECT id, issue_id, body FROM "${I}".comments ON CONFLICT (id) DO NOTHING`);
  await db.query(`
    INSERT INTO replica_state (id, built, snapshot_at, built_at) VALUES (1, true, now(), now())
    ON CONFLICT (id) DO UPDATE SET built = true, snapshot_at = now(), built_at = now()`);
  await db.query('COMMIT');
  await db.query('ANALYZE');
  await db.query('SET search_path TO public');
}
