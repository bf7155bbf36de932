import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generatedEnv, interpolate, rawCompose, ROOT } from './compose-file';

/**
 * deploy/redis/users.sh, the Redis users docker-compose.yml starts Redis with: one user per
 * service, each allowed only the commands and key patterns its code uses, the default user
 * off. The key prefixes are read from the code that builds the keys, so a renamed or new
 * prefix shows up here. Then, where a redis-server binary is installed, the users for real:
 * a scratch Redis of this test's own (127.0.0.1, a free port, nothing saved) started with
 * the script's output, and each service's own Redis code (the gateway's lookup script and
 * counters, the access service's signed caches, the grant reader, the ticket replay memory)
 * run through ioredis as that service's user: Redis must refuse it nothing (its ACL log
 * stays empty), and must refuse everything else tried below.
 */
const SERVICES = ['gateway', 'access', 'issues', 'statistics', 'agent', 'notifications'] as const;
type Service = (typeof SERVICES)[number];
const SCRIPT = path.join(ROOT, 'deploy/redis/users.sh');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** The prefixes the code builds its keys with. */
const rateLimit = read('services/gateway/src/domain/rate-limit.ts');
const cacheProtocol = read('libs/authz/src/cache-protocol.ts');
const PREFIX = {
  requests: /export const rateLimitKey = [^\n]*=> `([a-z]+:)\$\{/.exec(rateLimit)![1]!,
  failures: /export const authFailureKey = [^\n]*=> `([a-z]+:)\$\{/.exec(rateLimit)![1]!,
  token: /export const authCacheKey = [^\n]*=> `([a-z:]+:)\$\{/.exec(cacheProtocol)![1]!,
  grants: /export const aclCacheKey = [^\n]*=> `([a-z:]+:)\$\{/.exec(cacheProtocol)![1]!,
  fresh: /export const CACHE_FRESH_KEY = '([^']+)'/.exec(cacheProtocol)![1]!,
  seen: /`([a-z]+:)\$\{audience\}:\$\{id\}`/.exec(read('libs/authz/src/seen-tickets.ts'))![1]!,
  signIns: /const emailKey = [^\n]*=> `([a-z]+:)e:/.exec(read('services/access/src/data-access/sign-in-throttle.ts'))![1]!,
};

/** Each user's rights: commands, key patterns (`~` read-write, `%R~` read, `%W~` write) and selectors. */
const EXPECTED: Record<Service, { commands: string[]; keys: string[]; selectors: string[] }> = {
  gateway: {
    commands: ['+eval', '+evalsha', '+exists', '+get', '+info'],
    // EVAL names the script's keys and Redis checks them as read-write; only rl: and af: may be written (selector).
    keys: [`~${PREFIX.token}*`, `~${PREFIX.fresh}`, `~${PREFIX.requests}*`, `~${PREFIX.failures}*`],
    selectors: [`(+incr +expire ~${PREFIX.requests}* ~${PREFIX.failures}*)`],
  },
  access: {
    commands: ['+del', '+info', '+set'],
    keys: [`%W~${PREFIX.token}*`, `%W~${PREFIX.grants}*`, `%W~${PREFIX.fresh}`, `%W~${PREFIX.seen}access:*`],
    selectors: [`(+mget +incr +expire ~${PREFIX.signIns}*)`],
  },
  issues: {
    commands: ['+exists', '+get', '+info', '+set'],
    keys: [`%R~${PREFIX.grants}*`, `%R~${PREFIX.fresh}`, `%W~${PREFIX.seen}issues:*`],
    selectors: [],
  },
  statistics: {
    commands: ['+exists', '+get', '+info', '+set'],
    keys: [`%R~${PREFIX.grants}*`, `%R~${PREFIX.fresh}`, `%W~${PREFIX.seen}statistics:*`],
    selectors: [],
  },
  agent: { commands: ['+info', '+set'], keys: [`%W~${PREFIX.seen}agent:*`], selectors: [] },
  notifications: {
    commands: ['+exists', '+get', '+info', '+set'],
    keys: [`%R~${PREFIX.grants}*`, `%R~${PREFIX.fresh}`, `%W~${PREFIX.seen}notifications:*`],
    selectors: [],
  },
};

const dotEnv = generatedEnv();
const compose = interpolate(rawCompose(), dotEnv) as any;
const passwordOf = (service: Service) => decodeURIComponent(new URL(compose.services[service].environment.REDIS_URL).password);
const run = (env: Record<string, string>) => spawnSync('sh', [SCRIPT], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } });
/** What the Redis container runs the script with. */
const output = run(compose.services.redis.environment);
const lines = output.stdout.trim().split('\n');

interface Rule {
  user: string;
  rules: string[];
  selectors: string[];
}
function parse(line: string): Rule {
  const selectors = [...line.matchAll(/\([^)]*\)/g)].map((m) => m[0]);
  const [keyword, user, ...rules] = line.replace(/\s*\([^)]*\)/g, '').split(/\s+/);
  expect(keyword).toBe('user');
  return { user: user!, rules, selectors };
}
const rules = lines.map(parse);
const ruleOf = (service: Service) => rules.find((r) => r.user === `tracker-${service}`)!;

describe('deploy/redis/users.sh', () => {
  test('the code`s key prefixes are the ones the users are cut to', () => {
    expect(PREFIX).toEqual({ requests: 'rl:', failures: 'af:', token: 'auth:tok:', grants: 'acl:user:', fresh: 'authz:fresh', seen: 'seen:', signIns: 'signin:' });
  });

  test('prints the default user switched off and one user per service, nothing else', () => {
    expect(output.status).toBe(0);
    expect(output.stderr).toBe('');
    expect(lines[0]).toBe('user default reset');
    expect(rules.map((r) => r.user)).toEqual(['default', ...SERVICES.map((s) => `tracker-${s}`)]);
  });

  test.each(SERVICES)('tracker-%s: starts from nothing, is on, has its own password (as its SHA-256), and only its commands and key patterns', (service) => {
    const { rules: parts, selectors } = ruleOf(service);
    expect(parts.slice(0, 2)).toEqual(['reset', 'on']);
    const hashes = parts.filter((p) => p.startsWith('#'));
    expect(hashes).toEqual([`#${createHash('sha256').update(passwordOf(service)).digest('hex')}`]);
    // Never a password in clear, nopass, all keys, all channels, a command category or a command of another kind.
    expect(parts.filter((p) => /^(>|<|nopass$|allkeys$|~\*$|allchannels$|&|allcommands$|\+@|-@)/.test(p))).toEqual([]);
    expect(parts.filter((p) => p.startsWith('+')).sort()).toEqual(EXPECTED[service].commands);
    expect(parts.filter((p) => /^(%[RW]{1,2})?~/.test(p)).sort()).toEqual([...EXPECTED[service].keys].sort());
    expect(selectors).toEqual(EXPECTED[service].selectors);
    expect(parts.length).toBe(3 + EXPECTED[service].commands.length + EXPECTED[service].keys.length);
  });

  test('no user may write another`s keys: each replay memory is its service`s alone, and readers write nothing else', () => {
    const writable = (service: Service) => [...ruleOf(service).rules, ...ruleOf(service).selectors.join(' ').replace(/[()]/g, '').split(' ')].filter((p) => /^(%W|%RW)?~/.test(p) && !p.startsWith('%R~'));
    const seen = SERVICES.map((s) => writable(s).filter((p) => p.includes(PREFIX.seen)));
    // The gateway takes no tickets, so it has no replay memory.
    expect(seen).toEqual(SERVICES.map((s) => (s === 'gateway' ? [] : [`%W~${PREFIX.seen}${s}:*`])));
    for (const service of ['issues', 'statistics', 'agent', 'notifications'] as const) {
      expect([service, writable(service).filter((p) => !p.includes(PREFIX.seen))]).toEqual([service, []]);
    }
  });

  test('refuses a missing, short or unquotable password', () => {
    const good = Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_REDIS_PASSWORD`, dotEnv[`${s.toUpperCase()}_REDIS_PASSWORD`]!]));
    expect(run(good).status).toBe(0);
    expect(run({ ...good, AGENT_REDIS_PASSWORD: '' }).stderr).toMatch(/AGENT_REDIS_PASSWORD is not set/);
    expect(run({ ...good, ISSUES_REDIS_PASSWORD: 'short' }).status).not.toBe(0);
    expect(run({ ...good, GATEWAY_REDIS_PASSWORD: 'abcdefghijklmnop qrst' }).status).not.toBe(0);
    expect(run({ ...good, ACCESS_REDIS_PASSWORD: 'abcdefghijklmnop@qrst' }).status).not.toBe(0);
  });
});

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released for redis-server). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const installed = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;

(installed ? describe : describe.skip)('the users in a real Redis, with each service`s own Redis code', () => {
  // ioredis as the services have it (this package does not declare it); the libraries, and
  // the services' own Redis code, through their public entries.
  const requireFrom = (file: string) => createRequire(path.join(ROOT, file));
  const { Redis } = requireFrom('services/gateway/package.json')('ioredis');
  const accessRedis = require('@tracker/access/redis');
  const gatewayRedis = require('@tracker/gateway/redis');
  const authz = require('@tracker/authz');
  const signing = require('@tracker/signing');
  const ADMIN = { user: 'acl-test-admin', password: `admin-${Date.now()}-${process.pid}` };
  let server: ChildProcess;
  let dir: string;
  let port: number;
  const clients: any[] = [];
  const warnings: unknown[] = [];
  const logger: any = { warn: (...a: unknown[]) => warnings.push(a), debug() {}, info() {}, error: (...a: unknown[]) => warnings.push(a) };
  logger.child = () => logger;

  const ready = async (redis: any) => {
    clients.push(redis);
    if (redis.status !== 'ready') await new Promise((resolve, reject) => (redis.once('ready', resolve), redis.once('error', reject)));
    return redis;
  };
  const as = (service: Service) => ready(authz.createRedis(`redis://tracker-${service}:${passwordOf(service)}@127.0.0.1:${port}`, logger));
  const admin = () => ready(new Redis({ host: '127.0.0.1', port, username: ADMIN.user, password: ADMIN.password }));
  const refusal = (promise: Promise<unknown>) => promise.then(() => 'allowed', (err: Error) => err.message.split(' ')[0]);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracker-redis-acl-'));
    port = await freePort();
    // The script's users as compose hands them over (stdin), plus an administrator of this test's own to read the ACL log.
    const config = `${output.stdout}user ${ADMIN.user} on >${ADMIN.password} ~* &* +@all\n`;
    server = spawn('redis-server', ['-', '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['pipe', 'ignore', 'inherit'] });
    server.stdin!.end(config);
    for (let i = 0; ; i++) {
      const ping = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'ping'], { encoding: 'utf8' });
      if (/NOAUTH/.test(ping.stdout + ping.stderr)) break;
      if (i > 100) throw new Error(`redis-server did not start: ${ping.stdout}${ping.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  afterAll(() => {
    for (const client of clients) client.disconnect();
    server?.kill();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('each service`s Redis code runs as its own user and is refused nothing', async () => {
    const { authStore } = gatewayRedis;
    const { sharedCache } = accessRedis;
    const { aclReader, redisSeenTickets, authCacheKey, aclCacheKey } = authz;
    const { devSigningKey, devTrustedKeysText, parseTrustedKeys } = signing;
    const trusted = parseTrustedKeys(devTrustedKeysText());
    const tokenHash = 'a'.repeat(64);
    const expiresAt = Date.now() + 15_000;

    // access: signs and stores a principal and a grant list, renews the freshness key, deletes a stale entry.
    const access = await as('access');
    const noDebts = { query: async () => ({ rows: [] }) };
    const cache = sharedCache(access, noDebts, 300, logger, devSigningKey('access'));
    await cache.store(authCacheKey(tokenHash), { kind: 'user', userId: 1, workspaceId: 1, workspaceRole: 'member', tokenId: 1 });
    await cache.store(aclCacheKey(2), { user_id: 2, workspace_id: 1, grants: [] });
    await cache.store(aclCacheKey(1), { user_id: 1, workspace_id: 1, grants: [{ queue_id: 3, role: 'read-only' }] });
    await cache.keepFresh();
    await cache.invalidate([aclCacheKey(2)]);
    // access: the sign-in throttle reads and counts failures per email and per client.
    const { signInThrottle } = accessRedis;
    const throttle = signInThrottle(access, () => new Date(0));
    await throttle.recordFailure('ada@example.com', '192.0.2.1');
    expect(await throttle.failures('ada@example.com', '192.0.2.1')).toMatchObject({ email: 1, client: 1 });

    // gateway: the lookup script (counting a request, with and without a cached entry), counters, a failure.
    const gateway = await as('gateway');
    const store = authStore(gateway, trusted, logger);
    for (const count of [true, false]) {
      // The entry access stored is read (and trusted: the freshness key is read too).
      expect((await store.lookup(tokenHash, 1, count, '192.0.2.1')).token).toMatchObject({ userId: 1, tokenId: 1 });
      expect((await store.lookup('b'.repeat(64), 1, count, '192.0.2.1')).token).toBe('ask-access');
    }
    if (typeof store.countRequest === 'function') await store.countRequest(tokenHash, 1);
    await store.recordFailure('192.0.2.1', 1);

    // issues, statistics, notifications: the grant cache; every service that takes tickets: its replay memory.
    for (const service of ['issues', 'statistics', 'notifications'] as const) {
      const redis = await as(service);
      const asked: number[] = [];
      const grants = await aclReader(redis, { userAcl: async (userId: number) => (asked.push(userId), { user_id: userId, workspace_id: 1, grants: [] }) }, logger, trusted).explicitGrants(1, 1, null);
      // From the cache, not from the access service.
      expect([service, [...grants], asked]).toEqual([service, [[3, 'read-only']], []]);
    }
    for (const service of ['access', 'issues', 'statistics', 'agent', 'notifications'] as const) {
      const seen = redisSeenTickets(await as(service), logger);
      expect([service, await seen.firstSight(service, 'ticket-1', expiresAt), await seen.firstSight(service, 'ticket-1', expiresAt)]).toEqual([service, true, false]);
    }

    const root = await admin();
    const keysOfSignIns = (await root.keys(`${PREFIX.signIns}*`)).sort();
    expect(keysOfSignIns).toHaveLength(2);
    expect(await root.call('ACL', 'LOG')).toEqual([]);
    expect(warnings).toEqual([]);
    const keys = (await root.keys('*')).sort();
    expect(keys).toEqual(
      [
        `${PREFIX.token}${tokenHash}`,
        `${PREFIX.grants}1`,
        PREFIX.fresh,
        `${PREFIX.requests}${tokenHash.slice(0, 32)}:1`,
        `${PREFIX.failures}192.0.2.1:1`,
        ...['access', 'issues', 'statistics', 'agent', 'notifications'].map((s) => `${PREFIX.seen}${s}:ticket-1`),
        ...keysOfSignIns,
      ].sort(),
    );
  });

  test('and is refused everything else: other keys, other commands, writes through the script', async () => {
    const gateway = await as('gateway');
    const access = await as('access');
    const issues = await as('issues');
    const statistics = await as('statistics');
    const agent = await as('agent');
    const notifications = await as('notifications');
    const token = `${PREFIX.token}${'c'.repeat(64)}`;
    const tried: Array<[string, Promise<unknown>]> = [
      ['gateway writes a cache entry', gateway.set(token, 'forged')],
      ['gateway writes one through a script', gateway.eval(`return redis.call('SET', KEYS[1], 'forged')`, 1, token)],
      ['gateway counts on a cache entry through a script', gateway.eval(`return redis.call('INCR', KEYS[1])`, 1, token)],
      ['gateway reads a key its script does not name', gateway.eval(`return redis.call('GET', '${PREFIX.grants}1')`, 0)],
      ['gateway expires the freshness key', gateway.expire(PREFIX.fresh, 1)],
      ['gateway deletes a counter', gateway.del(`${PREFIX.requests}x:1`)],
      ['gateway reads a replay memory', gateway.get(`${PREFIX.seen}access:ticket-1`)],
      ['access reads a cache entry', access.get(token)],
      ['access writes a counter', access.set(`${PREFIX.requests}x:1`, '0')],
      ['access writes another`s replay memory', access.set(`${PREFIX.seen}issues:t`, '1', 'PX', 1000, 'NX')],
      ['issues writes the grant cache', issues.set(`${PREFIX.grants}1`, 'forged')],
      ['issues deletes the freshness key', issues.del(PREFIX.fresh)],
      ['issues reads a principal', issues.get(token)],
      ['issues writes statistics` replay memory', issues.set(`${PREFIX.seen}statistics:t`, '1', 'PX', 1000, 'NX')],
      ['statistics writes the freshness key', statistics.set(PREFIX.fresh, '1')],
      ['statistics reads its replay memory', statistics.get(`${PREFIX.seen}statistics:ticket-1`)],
      ['agent reads the grant cache', agent.get(`${PREFIX.grants}1`)],
      ['agent writes access` replay memory', agent.set(`${PREFIX.seen}access:t`, '1', 'PX', 1000, 'NX')],
      ['notifications writes the grant cache', notifications.set(`${PREFIX.grants}1`, 'forged')],
      ['notifications reads a principal', notifications.get(token)],
      ['notifications writes statistics` replay memory', notifications.set(`${PREFIX.seen}statistics:t`, '1', 'PX', 1000, 'NX')],
      ...SERVICES.flatMap((s, i): Array<[string, Promise<unknown>]> => {
        const redis = [gateway, access, issues, statistics, agent, notifications][i];
        return [
          [`${s} lists keys`, redis.keys('*')],
          [`${s} scans`, redis.scan('0')],
          [`${s} flushes`, redis.flushall()],
          [`${s} reads the configuration`, redis.config('GET', '*')],
          [`${s} reads the users`, redis.call('ACL', 'LIST')],
          [`${s} subscribes`, redis.call('PUBLISH', 'tracker', 'x')],
        ];
      }),
    ];
    const outcomes = await Promise.all(tried.map(async ([what, attempt]) => [what, await refusal(attempt)]));
    // NOPERM for a command or a key; ERR when a script's command is refused.
    for (const [what, outcome] of outcomes) expect([what, outcome]).toEqual([what, expect.stringMatching(/^(NOPERM|ERR)$/)]);
    // A client naming no user gets nothing.
    const anonymous = new Redis({ host: '127.0.0.1', port, lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0 });
    clients.push(anonymous);
    await anonymous.connect();
    expect(await refusal(anonymous.get(token))).toBe('NOAUTH');
  });
});
