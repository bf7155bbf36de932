import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  databaseConfigOf,
  databaseEnv,
  DEFAULT_DATABASE_URL,
  DEFAULT_REDIS_URL,
  loadConfig,
  port,
  redisEnv,
  serviceEnv,
  url,
  weakSecret,
} from '../src/config';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from '../src/postgres';
import { devSeedOf, devSigningKey, devTrustedKeysText, SIGNERS, signingKeyFromSeed } from '@tracker/signing';

const realSeed = () => randomBytes(32).toString('base64url');
const realTrusted = () => SIGNERS.map((signer) => `${signer}:${signingKeyFromSeed(signer, realSeed()).publicKey}`).join(',');
const STRONG_DB_URL = 'postgresql://access_app:Xq7v2LpZ9mR4tK8wB3nJ@db.internal:5432/tracker';
/** A production environment that passes every secret check. */
const production = () => {
  const seed = realSeed();
  const own = `access:${signingKeyFromSeed('access', seed).publicKey}`;
  const others = realTrusted().split(',').filter((entry) => !entry.startsWith('access:'));
  return { NODE_ENV: 'production', INTERNAL_SIGNING_KEY: seed, INTERNAL_TRUSTED_KEYS: [own, ...others].join(','), DATABASE_URL: STRONG_DB_URL };
};

const Env = serviceEnv('access', { PORT: port(8081), DATABASE_URL: url(DEFAULT_DATABASE_URL) }).transform((env) => ({
  env: env.NODE_ENV,
  http: { host: env.HOST, port: env.PORT, shutdownGraceMs: env.SHUTDOWN_GRACE_MS },
  log: { level: env.LOG_LEVEL },
  database: { url: env.DATABASE_URL },
  internal: env.internal,
}));

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

let stderr: jest.SpyInstance;
const exit = jest.fn((code: number): never => {
  throw new Exited(code);
});
beforeEach(() => {
  stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  exit.mockClear();
});
afterEach(() => stderr.mockRestore());

const written = () => stderr.mock.calls.map(([chunk]) => String(chunk)).join('');

/** Loads, expecting the process to exit; returns what was written to stderr. */
function failingLoad(env: NodeJS.ProcessEnv): string {
  expect(() => loadConfig(Env, env, exit)).toThrow(Exited);
  expect(exit).toHaveBeenCalledTimes(1);
  expect(exit).toHaveBeenCalledWith(78);
  return written();
}

describe('loadConfig', () => {
  test('when the environment is empty, then every default is used', () => {
    expect(loadConfig(Env, {}, exit)).toEqual({
      env: 'development',
      http: { host: '127.0.0.1', port: 8081, shutdownGraceMs: 10_000 },
      log: { level: 'info' },
      database: { url: DEFAULT_DATABASE_URL },
      internal: { key: expect.objectContaining({ signer: 'access', publicKey: devSigningKey('access').publicKey }), trusted: expect.any(Map), tagTickets: true },
    });
    expect(exit).not.toHaveBeenCalled();
    expect(stderr).not.toHaveBeenCalled();
  });

  test('when INTERNAL_TICKETS is signed, then the part signs its tickets; anything but tagged or signed is refused', () => {
    expect(loadConfig(Env, { INTERNAL_TICKETS: 'signed' }, exit).internal.tagTickets).toBe(false);
    expect(loadConfig(Env, { INTERNAL_TICKETS: 'tagged' }, exit).internal.tagTickets).toBe(true);
    expect(failingLoad({ INTERNAL_TICKETS: 'none' })).toContain('INTERNAL_TICKETS');
  });

  test('when values are given as strings, then numbers are coerced and the rest kept', () => {
    const config = loadConfig(Env, { NODE_ENV: 'test', PORT: '9000', SHUTDOWN_GRACE_MS: '0', HOST: '0.0.0.0', LOG_LEVEL: 'silent' }, exit);
    expect(config).toMatchObject({ env: 'test', http: { host: '0.0.0.0', port: 9000, shutdownGraceMs: 0 }, log: { level: 'silent' } });
  });

  test('when the config is loaded, then it and every nested object and array are frozen', () => {
    const config = loadConfig(Env, {}, exit);
    for (const part of [config, config.http, config.log, config.database, config.internal]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      (config.http as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(config.http.port).toBe(8081);
  });

  test('when several values are invalid, then every invalid key is written to stderr and the process exits with 78', () => {
    const out = failingLoad({
      NODE_ENV: 'staging',
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      INTERNAL_SIGNING_KEY: 'short',
      SHUTDOWN_GRACE_MS: '-1',
      DATABASE_URL: 'not a url',
      HOST: 'db.internal',
    });
    for (const key of ['NODE_ENV', 'PORT', 'LOG_LEVEL', 'INTERNAL_SIGNING_KEY', 'SHUTDOWN_GRACE_MS', 'DATABASE_URL']) {
      expect(out).toMatch(new RegExp(`^  ${key}: .+$`, 'm'));
    }
    expect(out).not.toContain('HOST');
    expect(out).toMatch(/^Invalid configuration:\n/);
  });

  test.each([
    ['a port above 65535', 'PORT', { PORT: '65536' }],
    ['a fractional grace period', 'SHUTDOWN_GRACE_MS', { SHUTDOWN_GRACE_MS: '1.5' }],
    ['a grace period over two minutes', 'SHUTDOWN_GRACE_MS', { SHUTDOWN_GRACE_MS: '120001' }],
    ['an empty host', 'HOST', { HOST: '' }],
    ['a signing key that is not 32 bytes', 'INTERNAL_SIGNING_KEY', { INTERNAL_SIGNING_KEY: 'A'.repeat(42) }],
    ['a signing key in padded base64', 'INTERNAL_SIGNING_KEY', { INTERNAL_SIGNING_KEY: `${realSeed()}=` }],
    ['trusted keys naming an unknown part', 'INTERNAL_TRUSTED_KEYS', { INTERNAL_TRUSTED_KEYS: `mallory:${devSigningKey('gateway').publicKey}` }],
    ['trusted keys with a short key', 'INTERNAL_TRUSTED_KEYS', { INTERNAL_TRUSTED_KEYS: 'gateway:abc' }],
  ])('when the environment has %s, then %s is reported and the process exits', (_name, key, env) => {
    expect(failingLoad(env)).toMatch(new RegExp(`^  ${key}: `, 'm'));
  });
});

describe('serviceEnv: secrets in production', () => {
  test.each([
    ['no signing key', 'INTERNAL_SIGNING_KEY', { INTERNAL_SIGNING_KEY: undefined }, 'must be set in production'],
    ['the development signing key', 'INTERNAL_SIGNING_KEY', { INTERNAL_SIGNING_KEY: devSeedOf('access') }, 'is a development key'],
    ['another part\'s development key', 'INTERNAL_SIGNING_KEY', { INTERNAL_SIGNING_KEY: devSeedOf('gateway') }, 'is a development key'],
    ['a signing key of one repeated byte', 'INTERNAL_SIGNING_KEY', { INTERNAL_SIGNING_KEY: Buffer.alloc(32, 7).toString('base64url') }, 'is not random enough'],
    ['no trusted keys', 'INTERNAL_TRUSTED_KEYS', { INTERNAL_TRUSTED_KEYS: undefined }, 'must be set in production'],
    ['the development trusted keys', 'INTERNAL_TRUSTED_KEYS', { INTERNAL_TRUSTED_KEYS: devTrustedKeysText() }, 'names a development key'],
    ['trusted keys that are empty', 'INTERNAL_TRUSTED_KEYS', { INTERNAL_TRUSTED_KEYS: '' }, 'names no key of gateway, access, issues, statistics, agent, notifications'],
    ['trusted keys without the agent', 'INTERNAL_TRUSTED_KEYS', { INTERNAL_TRUSTED_KEYS: realTrusted().split(',').filter((e) => !e.startsWith('agent:')).join(',') }, 'names no key of agent'],
    ['trusted keys without its own public key', 'INTERNAL_TRUSTED_KEYS', { INTERNAL_TRUSTED_KEYS: realTrusted() }, 'does not list this part\'s own public key (access)'],
    ['a URL without a password', 'DATABASE_URL', { DATABASE_URL: 'postgresql://access_app@db.internal:5432/tracker' }, 'must carry a password in production'],
    ['a URL with a default password', 'DATABASE_URL', { DATABASE_URL: 'postgresql://postgres:postgres@db.internal:5432/tracker' }, 'has a default or weak password (16+ random characters needed)'],
    ['a URL whose password is "a" x 32', 'DATABASE_URL', { DATABASE_URL: `postgresql://app:${'a'.repeat(32)}@db.internal:5432/tracker` }, 'has a default or weak password (16+ random characters needed)'],
  ])('when NODE_ENV is production with %s, then %s is reported and the process exits', (_name, key, change, message) => {
    const env: Record<string, string | undefined> = { ...production(), ...change };
    expect(failingLoad(env as NodeJS.ProcessEnv)).toMatch(new RegExp(`^  ${key}: ${message.replace(/[()+]/g, '\\$&')}$`, 'm'));
  });

  test('when NODE_ENV is production with real keys and a strong password, then the config loads with those keys', () => {
    const env = production();
    const config = loadConfig(Env, env, exit);
    expect(config.internal.key.publicKey).toBe(signingKeyFromSeed('access', env.INTERNAL_SIGNING_KEY).publicKey);
    expect([...config.internal.trusted.keys()].sort()).toEqual([...SIGNERS].sort());
  });

  test.each(['development', 'test'])('when NODE_ENV is %s, then the development keys are used where none are set', (nodeEnv) => {
    const config = loadConfig(Env, { NODE_ENV: nodeEnv }, exit);
    expect(config.internal.key.publicKey).toBe(devSigningKey('access').publicKey);
    expect(config.internal.trusted.get('gateway')).toHaveLength(1);
  });

  test('when production lacks its keys and another variable is invalid, then every problem is reported at once', () => {
    const out = failingLoad({ NODE_ENV: 'production', PORT: 'eighty', DATABASE_URL: STRONG_DB_URL });
    expect(out).toMatch(/^  PORT: /m);
    expect(out).toMatch(/^  INTERNAL_SIGNING_KEY: must be set in production$/m);
    expect(out).toMatch(/^  INTERNAL_TRUSTED_KEYS: must be set in production$/m);
  });

  test.each([
    ['a 16-character random password', 'Xq7v2LpZ9mR4tK8w', false],
    ['48 random characters', randomBytes(36).toString('base64'), false],
    ['a known default', 'guest', true],
    ['"a" x 32', 'a'.repeat(32), true],
    ['two characters alternating', 'ab'.repeat(20), true],
    ['15 characters', 'Xq7v2LpZ9mR4tK8', true],
  ])('weakSecret: %s → %s', (_name, value, weak) => {
    expect(weakSecret(value)).toBe(weak);
  });
});

describe('the shared env fragments of the kit', () => {
  const Fragments = z.object({ ...databaseEnv('issues'), ...redisEnv }).transform((env) => ({
    database: databaseConfigOf(env),
    redis: env.REDIS_URL,
  }));

  test('when nothing is set, then every default is used (the schema given to databaseEnv included)', () => {
    expect(Fragments.parse({})).toEqual({
      database: { url: DEFAULT_DATABASE_URL, schema: 'issues', poolMax: 10, statementTimeoutMs: DEFAULT_STATEMENT_TIMEOUT_MS },
      redis: DEFAULT_REDIS_URL,
    });
  });

  test('when values are set, then they are read under the same names', () => {
    const env = {
      DATABASE_URL: 'postgresql://app@db:5432/x',
      DATABASE_SCHEMA: 'issues_test',
      DATABASE_POOL_MAX: '20',
      DATABASE_STATEMENT_TIMEOUT_MS: '250',
      REDIS_URL: 'redis://cache:6379',
    };
    expect(Fragments.parse(env)).toEqual({
      database: { url: env.DATABASE_URL, schema: 'issues_test', poolMax: 20, statementTimeoutMs: 250 },
      redis: env.REDIS_URL,
    });
  });

  test.each([
    ['DATABASE_SCHEMA', 'Issues'],
    ['DATABASE_POOL_MAX', '0'],
    ['DATABASE_POOL_MAX', '201'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '99'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '600001'],
    ['REDIS_URL', 'not a url'],
  ])('when %s is %j, then it is refused', (name, value) => {
    const result = Fragments.safeParse({ [name]: value });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([name]);
  });

  test('when DATABASE_SCHEMA is not an SQL identifier, then the message says so', () => {
    expect(Fragments.safeParse({ DATABASE_SCHEMA: '1x' }).error?.issues[0]?.message).toBe('must be a lower-case SQL identifier');
  });
});
