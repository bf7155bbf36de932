import fs from 'node:fs';
import path from 'node:path';

/**
 * docs/configuration.md lists every environment variable of every service, and nothing
 * else. The variables are read from the sources, not from a running service:
 * - a service's `src/config.ts` declares its schema as `serviceEnv('<name>', { ... })` (or,
 *   for web, `z.object({ ... })`): each `KEY: ...` or shorthand `KEY,` line up to the
 *   schema's `.transform((env` is one variable, and `...helper` / `...helper('x')` spreads
 *   the variables of an env helper of the libraries (HELPER_SOURCES: libs/kit/src/config.ts's
 *   `databaseEnv`, `redisEnv`, …; libs/events/src/config.ts's `outboxEnv`, `consumerEnv`);
 *   `serviceEnv` adds `commonEnv`'s;
 * - the page's `## ` sections say whose variables they list: "Every service", a service's
 *   name, or a title naming several services ("Database: access, issues, …").
 * A variable is documented for a service when a section covering that service names it in
 * a code span; every variable a section names must be one of every service it covers.
 */
const ROOT = path.resolve(__dirname, '../../..');
const PAGE = 'docs/configuration.md';

const read = (relative: string) => fs.readFileSync(path.join(ROOT, relative), 'utf8');
const KEY_LINE = /^\s+([A-Z][A-Z0-9_]*)\s*(?::|,\s*$)/gm;
/** An upper-case code span is a variable, but for the HTTP methods the page names (`GET`). */
const VARIABLE = /^(?!(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$)[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/** The library modules whose exported env helpers a service's config.ts spreads. */
const HELPER_SOURCES = ['libs/kit/src/config.ts', 'libs/events/src/config.ts'];

/** The variables of each env helper those modules export (`export const name = {` or `= (…) => ({`); a name exported twice is an error. */
function envHelpers(): Map<string, string[]> {
  const helpers = new Map<string, string[]>();
  for (const file of HELPER_SOURCES) {
    for (const m of read(file).matchAll(/^export const (\w+) = (?:\([^)]*\) => \()?\{\n([\s\S]*?)^\}\)?;$/gm)) {
      const keys = [...m[2]!.matchAll(KEY_LINE)].map((k) => k[1]!);
      if (keys.length === 0) continue;
      if (helpers.has(m[1]!)) throw new Error(`${file} exports ${m[1]}, an env helper of another of ${HELPER_SOURCES.join(', ')} too`);
      helpers.set(m[1]!, keys);
    }
  }
  return helpers;
}

const HELPERS = envHelpers();

/** The variables one service's config.ts declares. */
function variablesOf(service: string): string[] {
  const source = read(`services/${service}/src/config.ts`);
  const start = source.indexOf('const Env =');
  const end = source.indexOf('.transform((env', start);
  if (start < 0 || end < 0) throw new Error(`services/${service}/src/config.ts: no \`const Env = … .transform((env\` to read`);
  const schema = source.slice(start, end);
  const keys = [...schema.matchAll(KEY_LINE)].map((m) => m[1]!);
  for (const [, helper] of schema.matchAll(/\.\.\.(\w+)/g)) {
    const spread = HELPERS.get(helper!);
    if (!spread) throw new Error(`services/${service}/src/config.ts spreads ${helper}, which is no env helper of ${HELPER_SOURCES.join(' or ')}`);
    keys.push(...spread);
  }
  if (/\bserviceEnv\(/.test(schema)) keys.push(...HELPERS.get('commonEnv')!);
  return [...new Set(keys)].sort();
}

const SERVICES = fs
  .readdirSync(path.join(ROOT, 'services'))
  .filter((name) => fs.existsSync(path.join(ROOT, 'services', name, 'src/config.ts')))
  .sort();
const VARIABLES = new Map(SERVICES.map((service) => [service, variablesOf(service)]));

interface Section {
  title: string;
  covers: string[];
  names: string[];
}

/** The page's `## ` sections, whom each covers, and the variables each names in code spans. */
function sections(markdown: string): Section[] {
  return markdown
    .split(/^## /m)
    .slice(1)
    .map((chunk) => {
      const title = chunk.slice(0, chunk.indexOf('\n')).trim();
      const covers = /^every service\b/i.test(title) ? SERVICES : SERVICES.filter((s) => new RegExp(`\\b${s}\\b`).test(title));
      const names = [...chunk.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!).filter((span) => VARIABLE.test(span));
      return { title, covers, names: [...new Set(names)] };
    });
}

const markdown = read(PAGE);
const SECTIONS = sections(markdown);

describe('the variables of the services', () => {
  test('the env helpers are read from every library module that has some', () => {
    expect([...HELPERS.keys()]).toEqual(expect.arrayContaining(['commonEnv', 'databaseEnv', 'redisEnv', 'outboxEnv', 'consumerEnv']));
    expect(HELPERS.get('outboxEnv')).toEqual(['AMQP_URL', 'OUTBOX_POLL_MS', 'OUTBOX_RETENTION_HOURS', 'EVENTS_EXCHANGE']);
    expect(HELPERS.get('consumerEnv')).toEqual(['AMQP_URL', 'EVENTS_EXCHANGE', 'EVENTS_QUEUE', 'EVENTS_PREFETCH', 'EVENTS_MAX_ATTEMPTS', 'EVENTS_RETRY_DELAY_MS']);
  });

  test('are read from every config.ts, its own and its helpers\' alike', () => {
    expect(SERVICES).toEqual(expect.arrayContaining(['access', 'agent', 'gateway', 'issues', 'notifications', 'statistics', 'web']));
    // A key of its own (the last of its schema), one of each helper it spreads, and commonEnv's.
    expect(VARIABLES.get('gateway')).toEqual(expect.arrayContaining(['REDIS_TIMEOUT_MS', 'CLIENT_REQUESTS_IN_FLIGHT', 'LOG_LEVEL', 'INTERNAL_TICKETS']));
    expect(VARIABLES.get('access')).toEqual(expect.arrayContaining(['SIGN_IN_FAILURES_PER_CLIENT', 'DATABASE_STATEMENT_TIMEOUT_MS', 'OUTBOX_RETENTION_HOURS', 'REDIS_URL', 'MAX_CONNECTIONS']));
    expect(VARIABLES.get('notifications')).toEqual(expect.arrayContaining(['EVENT_STREAMS_PER_USER', 'WEBHOOK_ALLOWED_TARGETS', 'WEBHOOK_TIMEOUT_MS', 'EVENTS_RETRY_DELAY_MS']));
    expect(VARIABLES.get('statistics')).toEqual(expect.arrayContaining(['EVENTS_QUEUE', 'EVENTS_PREFETCH', 'AMQP_URL']));
    expect(VARIABLES.get('issues')).toEqual(expect.arrayContaining(['OUTBOX_POLL_MS', 'EVENTS_EXCHANGE', 'AMQP_URL']));
    // web takes some of commonEnv by name and no keys.
    expect(VARIABLES.get('web')).toEqual(['HOST', 'LOG_LEVEL', 'MAX_CONNECTIONS', 'METRICS_PORT', 'NODE_ENV', 'PORT', 'SHUTDOWN_GRACE_MS', 'WEB_STATIC_DIR']);
  });
});

describe(PAGE, () => {
  test('has a section for every service, and every section covers at least one', () => {
    for (const service of SERVICES) expect(SECTIONS.map((s) => s.title)).toContain(service);
    expect(SECTIONS.filter((s) => s.covers.length === 0).map((s) => s.title)).toEqual([]);
  });

  test.each(SERVICES)('documents every variable of %s under a section covering it', (service) => {
    const documented = new Set(SECTIONS.filter((s) => s.covers.includes(service)).flatMap((s) => s.names));
    expect(VARIABLES.get(service)!.filter((name) => !documented.has(name))).toEqual([]);
  });

  test('names in each section only variables of every service it covers', () => {
    const wrong = SECTIONS.flatMap((s) =>
      s.names.flatMap((name) => s.covers.filter((service) => !VARIABLES.get(service)!.includes(name)).map((service) => `${s.title}: ${name} is no variable of ${service}`)),
    );
    expect(wrong).toEqual([]);
  });

  test('names no variable that no config.ts has', () => {
    const all = new Set([...VARIABLES.values()].flat());
    const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!).filter((span) => VARIABLE.test(span));
    expect([...new Set(spans)].filter((name) => !all.has(name))).toEqual([]);
  });
});
