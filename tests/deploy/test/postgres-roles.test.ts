import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * deploy/postgres/roles.sql against the real Postgres, run the way the compose file runs it
 * (deploy/postgres/init-roles.sh, psql), in a scratch database of its own: every service's
 * migrations then apply as the migrator role (prisma-offline deploy, as the images do),
 * and each service's runtime role can read and write its own schema's tables and do
 * nothing else: no other schema, no DDL, no temporary tables. Dropped at the end.
 *
 * The server: DATABASE_URL (a superuser, any database on it), else
 * postgresql://postgres@127.0.0.1:5432/postgres.
 */
const ROOT = path.resolve(__dirname, '../../..');
// node-postgres as tools/prisma-offline has it (this package declares no database driver).
const pg = createRequire(path.join(ROOT, 'tools/prisma-offline/package.json'))('pg') as {
  Client: new (options: { connectionString: string }) => Client;
};
interface Client {
  connect(): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[]; rowCount: number | null }>;
  end(): Promise<void>;
}

const SERVER = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
const SERVICES = ['access', 'issues', 'statistics', 'notifications'] as const;
type Service = (typeof SERVICES)[number];

// Roles are cluster-wide: a prefix of its own, so parallel runs never meet.
const stamp = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const DATABASE = `tracker_roles_${stamp}`;
const PREFIX = `trk${stamp}`;
const password = () => randomBytes(24).toString('base64url');
const PASSWORDS = { migrator: password(), access: password(), issues: password(), statistics: password(), notifications: password() };
const STALE_AFTER_MS = 2 * 60 * 60 * 1000;

const urlAs = (role: keyof typeof PASSWORDS) => {
  const url = new URL(SERVER);
  url.username = `${PREFIX}_${role}`;
  url.password = PASSWORDS[role];
  url.pathname = `/${DATABASE}`;
  return url.toString();
};
const adminUrl = (database: string) => Object.assign(new URL(SERVER), { pathname: `/${database}` }).toString();

async function connect(url: string): Promise<Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** deploy/postgres/init-roles.sh as the postgres image's entrypoint runs it, against the scratch database. */
function runInitScript(): void {
  const result = spawnSync('sh', [path.join(ROOT, 'deploy/postgres/init-roles.sh')], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      PGHOST: SERVER.hostname,
      PGPORT: SERVER.port || '5432',
      ...(SERVER.password ? { PGPASSWORD: decodeURIComponent(SERVER.password) } : {}),
      POSTGRES_USER: decodeURIComponent(SERVER.username) || 'postgres',
      POSTGRES_DB: DATABASE,
      TRACKER_ROLE_PREFIX: PREFIX,
      TRACKER_ROLES_SQL: path.join(ROOT, 'deploy/postgres/roles.sql'),
      MIGRATOR_DB_PASSWORD: PASSWORDS.migrator,
      ACCESS_DB_PASSWORD: PASSWORDS.access,
      ISSUES_DB_PASSWORD: PASSWORDS.issues,
      STATISTICS_DB_PASSWORD: PASSWORDS.statistics,
      NOTIFICATIONS_DB_PASSWORD: PASSWORDS.notifications,
    },
  });
  if (result.error) throw new Error(`init-roles.sh could not run (is psql installed?): ${result.error.message}`);
  if (result.status !== 0) throw new Error(`init-roles.sh failed (${result.status}): ${result.stderr}`);
}

/** `prisma-offline deploy` in the service's folder, as its image runs it, as the migrator. */
function migrate(service: Service): string {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'tools/prisma-offline/cli.mjs'), 'deploy'], {
    cwd: path.join(ROOT, 'services', service),
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: urlAs('migrator') },
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`migrating ${service} as the migrator failed: ${result.stderr || result.stdout}`);
  return result.stdout;
}

/** The SQLSTATE a statement fails with, or 'ok'. */
async function outcome(client: Client, sql: string): Promise<string> {
  try {
    await client.query(sql);
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

let admin: Client;
let scratch: Client;
const runtime = new Map<Service, Client>();

/** Leftovers of runs that crashed before their clean-up. */
async function dropStale(client: Client): Promise<void> {
  const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'tracker\\_roles\\_%'");
  for (const { datname } of rows) {
    const created = parseInt(datname.slice('tracker_roles_'.length, -6), 36);
    if (Number.isFinite(created) && Date.now() - created > STALE_AFTER_MS) {
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      const roles = await client.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname LIKE $1', [`trk${datname.slice('tracker_roles_'.length)}\\_%`]);
      for (const { rolname } of roles.rows) await client.query(`DROP ROLE IF EXISTS "${rolname}"`);
    }
  }
}

beforeAll(async () => {
  admin = await connect(SERVER.toString());
  await dropStale(admin).catch(() => undefined);
  await admin.query(`CREATE DATABASE "${DATABASE}"`);
  runInitScript();
  for (const service of SERVICES) expect(migrate(service)).toMatch(/applied:/);
  scratch = await connect(adminUrl(DATABASE));
  for (const service of SERVICES) {
    const client = await connect(urlAs(service));
    await client.query(`SET search_path TO "${service}"`);
    runtime.set(service, client);
  }
}, 60_000);

afterAll(async () => {
  for (const client of runtime.values()) await client.end().catch(() => undefined);
  await scratch?.end().catch(() => undefined);
  if (admin) {
    await admin.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
    for (const role of Object.keys(PASSWORDS)) await admin.query(`DROP ROLE IF EXISTS "${PREFIX}_${role}"`);
    await admin.end();
  }
}, 30_000);

test('the roles are plain logins: no superuser, no CREATEDB, no CREATEROLE, no replication, no RLS bypass', async () => {
  const { rows } = await admin.query<Record<string, unknown>>(
    'SELECT rolname, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname LIKE $1 ORDER BY rolname',
    [`${PREFIX}\\_%`],
  );
  expect(rows.map((r) => r.rolname)).toEqual(['access', 'issues', 'migrator', 'notifications', 'statistics'].map((r) => `${PREFIX}_${r}`));
  for (const row of rows) expect(row).toMatchObject({ rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolreplication: false, rolbypassrls: false, rolcanlogin: true });
});

test('the migrator owns the four schemas and everything the migrations made in them', async () => {
  const { rows } = await scratch.query<{ kind: string; name: string; owner: string }>(
    `SELECT 'schema' AS kind, nspname AS name, nspowner::regrole::text AS owner FROM pg_namespace WHERE nspname = ANY($1)
     UNION ALL SELECT 'relation', c.oid::regclass::text, c.relowner::regrole::text FROM pg_class c WHERE c.relnamespace::regnamespace::text = ANY($1)
     UNION ALL SELECT 'type', t.oid::regtype::text, t.typowner::regrole::text FROM pg_type t WHERE t.typnamespace::regnamespace::text = ANY($1)
     UNION ALL SELECT 'function', p.oid::regprocedure::text, p.proowner::regrole::text FROM pg_proc p WHERE p.pronamespace::regnamespace::text = ANY($1)`,
    [SERVICES],
  );
  expect(rows.filter((r) => r.kind === 'relation').length).toBeGreaterThan(20);
  expect(rows.filter((r) => r.kind === 'function').length).toBeGreaterThanOrEqual(4); // the search-vector triggers
  expect(rows.filter((r) => r.owner !== `${PREFIX}_migrator`)).toEqual([]);
});

test('nobody else may connect to the database or create objects in schema public', async () => {
  const { rows } = await scratch.query<{ grantee: string; privilege: string }>(
    `SELECT coalesce(a.grantee::regrole::text, 'PUBLIC') AS grantee, a.privilege_type AS privilege
     FROM pg_database d, aclexplode(d.datacl) a WHERE d.datname = current_database() AND a.grantee <> d.datdba`,
  );
  expect(rows.filter((r) => r.grantee === 'PUBLIC' || r.grantee === '-')).toEqual([]);
  expect(rows.map((r) => `${r.grantee}:${r.privilege}`).sort()).toEqual(['access', 'issues', 'migrator', 'notifications', 'statistics'].map((r) => `${PREFIX}_${r}:CONNECT`).sort());
});

/** Reads and writes through the service's own tables, triggers and sequences included. */
const WORK: Record<Service, string[]> = {
  access: [
    `INSERT INTO workspaces (name) VALUES ('Roles check')`,
    `UPDATE workspaces SET name = 'Roles check 2' WHERE name = 'Roles check'`,
    `SELECT count(*) FROM workspaces`,
    `DELETE FROM workspaces WHERE name = 'Roles check 2'`,
  ],
  issues: [
    `INSERT INTO queues (workspace_id, key, name) VALUES (1, 'ROLES', 'Roles')`,
    `INSERT INTO statuses (queue_id, name, category, position) SELECT id, 'Open', 'open', 1 FROM queues WHERE key = 'ROLES'`,
    `INSERT INTO issues (workspace_id, queue_id, number, key, title, status_id, position, created_by)
       SELECT 1, q.id, 1, 'ROLES-1', 'Roles check', s.id, 1, 1 FROM queues q JOIN statuses s ON s.queue_id = q.id WHERE q.key = 'ROLES'`,
    `UPDATE issues SET title = 'Roles check again' WHERE key = 'ROLES-1'`,
    `SELECT search_vector FROM issues WHERE key = 'ROLES-1' AND search_vector IS NOT NULL`,
    `DELETE FROM issues WHERE key = 'ROLES-1'`,
    `DELETE FROM statuses WHERE queue_id IN (SELECT id FROM queues WHERE key = 'ROLES')`,
    `DELETE FROM queues WHERE key = 'ROLES'`,
  ],
  statistics: [
    `INSERT INTO issues (id, workspace_id, queue_id, key, title, status_id, status_category, priority, type, estimate_minutes, spent_minutes, version, revision, created_at, updated_at)
       VALUES (1, 1, 1, 'ROLES-1', 'Roles check', 1, 'open', 'normal', 'task', 0, 0, 1, 1, now(), now())`,
    `UPDATE issues SET title = 'Roles check again', revision = 2 WHERE id = 1`,
    `UPDATE replica_state SET built = built WHERE id = 1`,
    `SELECT count(*) FROM issues WHERE search_vector IS NOT NULL`,
    `DELETE FROM issues WHERE id = 1`,
    // A replica rebuild empties the replica's tables.
    `TRUNCATE comments, issues, statuses, queues`,
  ],
  notifications: [
    `INSERT INTO events (id, workspace_id, type, queue_id, audience, occurred_at, recorded_at, payload)
       VALUES ('00000000-0000-4000-8000-000000000001', 1, 'issue.created', 1, 'queue_readers', now(), now(), '{}')`,
    `INSERT INTO pruned_horizons (workspace_id, through_seq) VALUES (1, 1) ON CONFLICT (workspace_id) DO UPDATE SET through_seq = 2`,
    `SELECT count(*) FROM events WHERE workspace_id = 1`,
    `DELETE FROM events WHERE workspace_id = 1`,
    `DELETE FROM pruned_horizons WHERE workspace_id = 1`,
  ],
};

describe.each(SERVICES)('the %s role', (service) => {
  const others = SERVICES.filter((s) => s !== service);

  test('selects, inserts, updates and deletes in its own schema (sequences and triggers included)', async () => {
    const client = runtime.get(service)!;
    for (const sql of WORK[service]) expect([sql, await outcome(client, sql)]).toEqual([sql, 'ok']);
    // The rights cover every table the migrations made, not only those used above.
    const { rows } = await client.query<{ name: string; ok: boolean }>(
      `SELECT c.relname AS name, has_table_privilege(c.oid, 'SELECT')
         AND has_table_privilege(c.oid, 'INSERT') AND has_table_privilege(c.oid, 'UPDATE') AND has_table_privilege(c.oid, 'DELETE') AS ok
       FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r'`,
      [service],
    );
    // The migrations' own table and at least two of the service's.
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.filter((r) => !r.ok)).toEqual([]);
  });

  test("reads nothing of another service's schema", async () => {
    const client = runtime.get(service)!;
    for (const other of others) {
      const { rows } = await scratch.query<{ name: string }>(`SELECT relname AS name FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind = 'r' LIMIT 1`, [other]);
      const sql = `SELECT * FROM "${other}"."${rows[0]!.name}" LIMIT 1`;
      expect([sql, await outcome(client, sql)]).toEqual([sql, '42501']); // insufficient_privilege
    }
  });

  test('runs no DDL: no table, column, index, schema or temporary table, in its schema or elsewhere', async () => {
    const client = runtime.get(service)!;
    const table = WORK[service][0]!.match(/INSERT INTO (\w+)/)![1];
    const statements = [
      `CREATE TABLE "${service}".roles_check (id int)`,
      `ALTER TABLE "${service}".${table} ADD COLUMN roles_check int`,
      `CREATE INDEX roles_check ON "${service}".${table} (id)`,
      `DROP TABLE "${service}".${table}`,
      `CREATE TABLE public.roles_check (id int)`,
      `CREATE SCHEMA roles_check`,
      `CREATE TEMPORARY TABLE roles_check (id int)`,
      `CREATE FUNCTION "${service}".roles_check() RETURNS int LANGUAGE sql AS 'SELECT 1'`,
    ];
    // insufficient_privilege, or must-be-owner (also 42501).
    for (const sql of statements) expect([sql, await outcome(client, sql)]).toEqual([sql, '42501']);
    if (service !== 'statistics') expect(await outcome(client, `TRUNCATE ${table}`)).toBe('42501');
  });
});

test('roles.sql can run again: it hands objects another role made to the migrator and grants them', async () => {
  // As if a table had been migrated as the superuser before the roles existed.
  await scratch.query('CREATE TABLE access.legacy_check (id int PRIMARY KEY)');
  runInitScript();
  const { rows } = await scratch.query<{ owner: string }>("SELECT relowner::regrole::text AS owner FROM pg_class WHERE oid = 'access.legacy_check'::regclass");
  expect(rows).toEqual([{ owner: `${PREFIX}_migrator` }]);
  const access = runtime.get('access')!;
  expect(await outcome(access, 'INSERT INTO legacy_check VALUES (1)')).toBe('ok');
  expect(await outcome(access, 'DELETE FROM legacy_check')).toBe('ok');
  expect(await outcome(runtime.get('issues')!, 'SELECT * FROM access.legacy_check')).toBe('42501');
  // And the migrations, run again, find nothing to do.
  expect(migrate('access')).toMatch(/up to date/);
});
