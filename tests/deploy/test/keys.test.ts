import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { serviceEnv, url, weakSecret } from '@tracker/kit';
import { DEV_PUBLIC_KEYS, parseTrustedKeys, SIGNERS, signingKeyFromSeed, signPayload, verifiedPayload } from '@tracker/signing';
import { loadNotificationsConfig } from '@tracker/notifications/config';
import { generatedEnv, interpolate, rawCompose, ROOT } from './compose-file';

/**
 * scripts/internal-keys.cjs (`pnpm keys`): what it prints is read by the kit exactly as
 * the services read it (signingKeyFromSeed, parseTrustedKeys), each key matches its public
 * half, every password passes the production check, and the compose file filled with it
 * passes every service's production start-up checks.
 */
const SCRIPT = path.join(ROOT, 'scripts/internal-keys.cjs');
const env = generatedEnv();
const PASSWORDS = Object.keys(env).filter((name) => name.endsWith('_PASSWORD'));

test('one signing key per component, each the public half of which INTERNAL_TRUSTED_KEYS holds', () => {
  const trusted = parseTrustedKeys(env.INTERNAL_TRUSTED_KEYS!);
  expect([...trusted.keys()].sort()).toEqual([...SIGNERS].sort());
  const entries = new Map(env.INTERNAL_TRUSTED_KEYS!.split(',').map((e) => e.split(':') as [string, string]));
  for (const signer of SIGNERS) {
    const seed = env[`${signer.toUpperCase()}_SIGNING_KEY`]!;
    expect(seed).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const key = signingKeyFromSeed(signer, seed);
    expect([signer, key.publicKey]).toEqual([signer, entries.get(signer)]);
    expect(DEV_PUBLIC_KEYS.has(key.publicKey)).toBe(false);
    expect(weakSecret(seed)).toBe(false);
    // What one signs, the others verify as that signer and as no other.
    const token = signPayload(key, { signer });
    expect(verifiedPayload(token, signer, trusted)).toEqual({ signer });
    for (const other of SIGNERS.filter((s) => s !== signer)) expect(verifiedPayload(token, other, trusted)).toBeNull();
  }
  expect(trusted.get('gateway')).toHaveLength(1);
});

test('every infrastructure password is random enough for production, and all differ', () => {
  expect(PASSWORDS.sort()).toEqual(
    [
      'POSTGRES_PASSWORD',
      'MIGRATOR_DB_PASSWORD',
      'ACCESS_DB_PASSWORD',
      'ISSUES_DB_PASSWORD',
      'STATISTICS_DB_PASSWORD',
      'NOTIFICATIONS_DB_PASSWORD',
      'GATEWAY_REDIS_PASSWORD',
      'ACCESS_REDIS_PASSWORD',
      'ISSUES_REDIS_PASSWORD',
      'STATISTICS_REDIS_PASSWORD',
      'AGENT_REDIS_PASSWORD',
      'NOTIFICATIONS_REDIS_PASSWORD',
      'ACCESS_AMQP_PASSWORD',
      'ISSUES_AMQP_PASSWORD',
      'STATISTICS_AMQP_PASSWORD',
      'NOTIFICATIONS_AMQP_PASSWORD',
    ].sort(),
  );
  for (const name of PASSWORDS) expect([name, weakSecret(env[name]!), /^[A-Za-z0-9_-]{43}$/.test(env[name]!)]).toEqual([name, false, true]);
  const secrets = Object.entries(env).filter(([name]) => name !== 'INTERNAL_TRUSTED_KEYS').map(([, v]) => v);
  expect(new Set(secrets).size).toBe(secrets.length);
  // A second run makes other keys.
  expect(generatedEnv().ACCESS_SIGNING_KEY).not.toBe(env.ACCESS_SIGNING_KEY);
});

test.each(SIGNERS)('compose filled with it passes the production start-up checks of %s', (signer) => {
  const service = (interpolate(rawCompose(), env) as any).services[signer];
  // The service's own schema adds its other fields; the checks read the keys and every *_URL.
  const shape = Object.fromEntries(Object.keys(service.environment).filter((name) => name.endsWith('_URL')).map((name) => [name, url('http://unused.invalid')]));
  const result = serviceEnv(signer, shape).safeParse(service.environment);
  expect(result.success ? [] : result.error.issues).toEqual([]);
  // The check is real: a default password in a URL is refused.
  const weak = { ...service.environment, REDIS_URL: 'redis://:redis@redis:6379' };
  expect(serviceEnv(signer, shape).safeParse(weak).success).toBe(false);
});

test('the key that seals webhook secrets is 32 random bytes, and compose filled with it passes the notifications service`s own production checks', () => {
  const key = env.NOTIFICATIONS_WEBHOOK_SECRETS_KEY!;
  expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(Buffer.from(key, 'base64url')).toHaveLength(32);
  expect(weakSecret(key)).toBe(false);
  const service = (interpolate(rawCompose(), env) as any).services.notifications;
  const written: string[] = [];
  const { exit } = process;
  const write = process.stderr.write;
  process.exit = ((code: number) => {
    throw new Error(`exit ${code}: ${written.join('')}`);
  }) as typeof process.exit;
  process.stderr.write = ((text: string) => written.push(text) > 0) as typeof process.stderr.write;
  try {
    const config = loadNotificationsConfig(service.environment);
    expect(config.webhooks.secretsKey.export()).toEqual(Buffer.from(key, 'base64url'));
  } finally {
    process.exit = exit;
    process.stderr.write = write;
  }
  expect(written).toEqual([]);
});

test('`key <component>` makes one new pair for a rotation; `public <seed>` gives the public half', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  const rotated = run('key', 'issues');
  expect(rotated.status).toBe(0);
  const seed = /^ISSUES_SIGNING_KEY=(\S+)$/m.exec(rotated.stdout)![1]!;
  const entry = /^(issues:\S+)$/m.exec(rotated.stdout)![1]!;
  expect(entry).toBe(`issues:${signingKeyFromSeed('issues', seed).publicKey}`);
  // While rotating, INTERNAL_TRUSTED_KEYS holds both keys of issues.
  const both = parseTrustedKeys(`${env.INTERNAL_TRUSTED_KEYS},${entry}`);
  expect(both.get('issues')).toHaveLength(2);

  const pub = run('public', env.AGENT_SIGNING_KEY!);
  expect(pub.stdout.trim()).toBe(signingKeyFromSeed('agent', env.AGENT_SIGNING_KEY!).publicKey);
  expect(run('public', 'not-a-key').status).toBe(65);
  expect(run('key', 'nobody').status).toBe(64);
  expect(run('bogus').status).toBe(64);
});
