import { DEFAULT_DATABASE_URL, DEV_INTERNAL_SECRET, loadConfig, port, serviceEnv, url } from '../src/config';

const REAL_SECRET = 'a-real-production-secret-0123456789abcdef';

const Env = serviceEnv({ PORT: port(8081), DATABASE_URL: url(DEFAULT_DATABASE_URL) }).transform((env) => ({
  env: env.NODE_ENV,
  http: { host: env.HOST, port: env.PORT, shutdownGraceMs: env.SHUTDOWN_GRACE_MS },
  log: { level: env.LOG_LEVEL },
  database: { url: env.DATABASE_URL },
  internal: { secrets: [env.INTERNAL_SECRET] },
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
      internal: { secrets: [DEV_INTERNAL_SECRET] },
    });
    expect(exit).not.toHaveBeenCalled();
    expect(stderr).not.toHaveBeenCalled();
  });

  test('when values are given as strings, then numbers are coerced and the rest kept', () => {
    const config = loadConfig(Env, { NODE_ENV: 'test', PORT: '9000', SHUTDOWN_GRACE_MS: '0', HOST: '0.0.0.0', LOG_LEVEL: 'silent' }, exit);
    expect(config).toMatchObject({ env: 'test', http: { host: '0.0.0.0', port: 9000, shutdownGraceMs: 0 }, log: { level: 'silent' } });
  });

  test('when the config is loaded, then it and every nested object and array are frozen', () => {
    const config = loadConfig(Env, {}, exit);
    for (const part of [config, config.http, config.log, config.database, config.internal, config.internal.secrets]) {
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
      INTERNAL_SECRET: 'short',
      SHUTDOWN_GRACE_MS: '-1',
      DATABASE_URL: 'not a url',
      HOST: 'db.internal',
    });
    for (const key of ['NODE_ENV', 'PORT', 'LOG_LEVEL', 'INTERNAL_SECRET', 'SHUTDOWN_GRACE_MS', 'DATABASE_URL']) {
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
    ['a 31-character secret', 'INTERNAL_SECRET', { INTERNAL_SECRET: 's'.repeat(31) }],
  ])('when the environment has %s, then %s is reported and the process exits', (_name, key, env) => {
    expect(failingLoad(env)).toMatch(new RegExp(`^  ${key}: `, 'm'));
  });
});

describe('serviceEnv: the production secret check (requireRealSecretInProduction)', () => {
  test.each([
    ['no INTERNAL_SECRET', { NODE_ENV: 'production' }],
    ['the development secret set explicitly', { NODE_ENV: 'production', INTERNAL_SECRET: DEV_INTERNAL_SECRET }],
  ])('when NODE_ENV is production with %s, then INTERNAL_SECRET is reported and the process exits', (_name, env) => {
    expect(failingLoad(env)).toMatch(/^  INTERNAL_SECRET: must be set in production$/m);
  });

  test('when NODE_ENV is production with a real secret, then the config loads', () => {
    expect(loadConfig(Env, { NODE_ENV: 'production', INTERNAL_SECRET: REAL_SECRET }, exit).internal.secrets).toEqual([REAL_SECRET]);
  });

  test.each(['development', 'test'])('when NODE_ENV is %s, then the development secret is allowed', (nodeEnv) => {
    expect(loadConfig(Env, { NODE_ENV: nodeEnv }, exit).internal.secrets).toEqual([DEV_INTERNAL_SECRET]);
  });

  // The style guide: "on failure the process exits listing every invalid key".
  test('when production uses the development secret and another key is invalid, then both keys are reported at once', () => {
    const out = failingLoad({ NODE_ENV: 'production', PORT: 'eighty' });
    expect(out).toMatch(/^  PORT: /m);
    expect(out).toMatch(/^  INTERNAL_SECRET: must be set in production$/m);
  });
});
