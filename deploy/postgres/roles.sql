-- Tracker's Postgres roles and schemas: no service connects as a superuser or as the
-- owner of its tables.
--
--   <prefix>_migrator     owns the schemas access, issues, statistics and notifications and everything in
--                         them; runs the migrations (prisma-offline deploy). Not a superuser,
--                         cannot create databases, roles or other schemas.
--   <prefix>_access       USAGE on schema access, and SELECT, INSERT, UPDATE, DELETE on its
--                         tables (USAGE, SELECT on its sequences): no DDL, no other schema.
--   <prefix>_issues       the same on schema issues.
--   <prefix>_statistics   the same on schema statistics, plus TRUNCATE (a replica rebuild
--                         empties its tables).
--   <prefix>_notifications  the same as access on schema notifications.
--
-- Grants on tables the migrator creates later come from ALTER DEFAULT PRIVILEGES, so a new
-- migration needs no new grant. Nobody else (PUBLIC) may connect to the database or create
-- anything in schema public.
--
-- Run it as a superuser (or the database owner with CREATEROLE) in Tracker's database,
-- with psql, which fills in the variables:
--
--   psql -v ON_ERROR_STOP=1 -d tracker -f deploy/postgres/roles.sql \
--     -v role_prefix=tracker -v migrator_password=... -v access_password=... \
--     -v issues_password=... -v statistics_password=... -v notifications_password=...
--
-- docker compose runs it once, through init-roles.sh, when the Postgres volume is created.
-- It can be run again at any time: it creates what is missing, sets the passwords, and
-- hands objects of the four schemas that another role owns (a database migrated as
-- `postgres` before these roles existed) to the migrator.

SET tracker.role_prefix = :'role_prefix';
SET tracker.migrator_password = :'migrator_password';
SET tracker.access_password = :'access_password';
SET tracker.issues_password = :'issues_password';
SET tracker.statistics_password = :'statistics_password';
SET tracker.notifications_password = :'notifications_password';

DO $roles$
DECLARE
  prefix text := current_setting('tracker.role_prefix');
  migrator text := current_setting('tracker.role_prefix') || '_migrator';
  service text;
  runtime text;
  secret text;
  obj record;
BEGIN
  IF prefix !~ '^[a-z_][a-z0-9_]{0,40}$' THEN
    RAISE EXCEPTION 'role_prefix must be a lower-case SQL identifier of at most 41 characters';
  END IF;

  -- The login roles: no superuser, no CREATEDB, no CREATEROLE, no replication, no RLS bypass.
  FOR service, secret IN
    SELECT * FROM (VALUES
      ('migrator', current_setting('tracker.migrator_password')),
      ('access', current_setting('tracker.access_password')),
      ('issues', current_setting('tracker.issues_password')),
      ('statistics', current_setting('tracker.statistics_password')),
      ('notifications', current_setting('tracker.notifications_password'))) AS v(service, secret)
  LOOP
    runtime := prefix || '_' || service;
    IF length(secret) < 16 THEN
      RAISE EXCEPTION 'the password of % is shorter than 16 characters', runtime;
    END IF;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = runtime) THEN
      EXECUTE format('ALTER ROLE %I WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD %L', runtime, secret);
    ELSE
      EXECUTE format('CREATE ROLE %I WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD %L', runtime, secret);
    END IF;
  END LOOP;

  -- Only Tracker's roles connect; nobody creates objects in schema public.
  EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I, %I, %I, %I, %I', current_database(),
    migrator, prefix || '_access', prefix || '_issues', prefix || '_statistics', prefix || '_notifications');
  REVOKE CREATE ON SCHEMA public FROM PUBLIC;

  FOREACH service IN ARRAY ARRAY['access', 'issues', 'statistics', 'notifications'] LOOP
    runtime := prefix || '_' || service;
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I AUTHORIZATION %I', service, migrator);
    EXECUTE format('ALTER SCHEMA %I OWNER TO %I', service, migrator);
    EXECUTE format('REVOKE ALL ON SCHEMA %I FROM PUBLIC', service);
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', service, runtime);

    -- Objects another role made (migrations run as a superuser before): to the migrator.
    -- Indexes, triggers and the sequences of serial/identity columns follow their table.
    FOR obj IN
      SELECT c.oid::regclass AS name FROM pg_class c
      WHERE c.relnamespace = service::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
        AND c.relowner <> migrator::regrole
    LOOP
      EXECUTE format('ALTER TABLE %s OWNER TO %I', obj.name, migrator);
    END LOOP;
    FOR obj IN
      SELECT c.oid::regclass AS name FROM pg_class c
      WHERE c.relnamespace = service::regnamespace AND c.relkind = 'S' AND c.relowner <> migrator::regrole
        AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
    LOOP
      EXECUTE format('ALTER SEQUENCE %s OWNER TO %I', obj.name, migrator);
    END LOOP;
    FOR obj IN
      SELECT t.oid::regtype AS name FROM pg_type t
      WHERE t.typnamespace = service::regnamespace AND t.typowner <> migrator::regrole
        AND (t.typtype IN ('e', 'd', 'r', 'm') OR (t.typtype = 'c' AND t.typrelid = 0))
    LOOP
      EXECUTE format('ALTER TYPE %s OWNER TO %I', obj.name, migrator);
    END LOOP;
    FOR obj IN
      SELECT p.oid::regprocedure AS name FROM pg_proc p
      WHERE p.pronamespace = service::regnamespace AND p.proowner <> migrator::regrole
    LOOP
      EXECUTE format('ALTER ROUTINE %s OWNER TO %I', obj.name, migrator);
    END LOOP;

    -- Data rights of the service's role: on what exists, and on what the migrator creates later.
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE%s ON ALL TABLES IN SCHEMA %I TO %I',
      CASE WHEN service = 'statistics' THEN ', TRUNCATE' ELSE '' END, service, runtime);
    EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO %I', service, runtime);
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE%s ON TABLES TO %I',
      migrator, service, CASE WHEN service = 'statistics' THEN ', TRUNCATE' ELSE '' END, runtime);
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA %I GRANT USAGE, SELECT ON SEQUENCES TO %I',
      migrator, service, runtime);
  END LOOP;
END
$roles$;

-- The passwords leave the session.
RESET tracker.migrator_password;
RESET tracker.access_password;
RESET tracker.issues_password;
RESET tracker.statistics_password;
RESET tracker.notifications_password;
RESET tracker.role_prefix;
