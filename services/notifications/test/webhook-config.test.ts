import { randomBytes } from 'node:crypto';
import { SIGNERS, signingKeyFromSeed } from '@tracker/signing';
import { DEV_WEBHOOK_SECRETS_KEY, loadNotificationsConfig } from '../src/config';
import { openSecret, sealSecret } from '../src/domain/secret-box';
import { addressRefusal } from '../src/domain/targets.rules';

/**
 * config.webhooks: the allow-list, the secrets key (required in production, where the
 * development key is refused) and the timeout, through the service's own loader: a bad
 * value fails the start-up, naming the variable.
 */
function start(env: Record<string, string>): { config: ReturnType<typeof loadNotificationsConfig> | null; issues: string[] } {
  const written: string[] = [];
  const { exit } = process;
  const write = process.stderr.write;
  process.exit = ((code: number) => {
    throw new Error(`exit ${code}`);
  }) as typeof process.exit;
  process.stderr.write = ((text: string) => written.push(text) > 0) as typeof process.stderr.write;
  try {
    return { config: loadNotificationsConfig({ NODE_ENV: 'test', ...env }), issues: [] };
  } catch {
    return { config: null, issues: written.join('').split('\n').filter((line) => line.startsWith('  ')).map((line) => line.trim()) };
  } finally {
    process.exit = exit;
    process.stderr.write = write;
  }
}

/** A production environment that passes every other check (fresh keys, passwords in the URLs). */
function production(): Record<string, string> {
  const keys = SIGNERS.map((signer) => {
    const seed = randomBytes(32).toString('base64url');
    return { signer, seed, key: signingKeyFromSeed(signer, seed) };
  });
  const password = () => randomBytes(24).toString('base64url');
  return {
    NODE_ENV: 'production',
    INTERNAL_SIGNING_KEY: keys.find((k) => k.signer === 'notifications')!.seed,
    INTERNAL_TRUSTED_KEYS: keys.map(({ signer, key }) => `${signer}:${key.publicKey}`).join(','),
    DATABASE_URL: `postgresql://tracker_notifications:${password()}@postgres:5432/tracker`,
    REDIS_URL: `redis://tracker-notifications:${password()}@redis:6379`,
    AMQP_URL: `amqp://tracker-notifications:${password()}@rabbitmq:5672`,
  };
}

describe('config.webhooks', () => {
  test('defaults: nothing allowed, 10 s, and outside production the development key', () => {
    const { config } = start({});
    expect(config!.webhooks.timeoutMs).toBe(10_000);
    expect(config!.webhooks.allowed.entries).toEqual([]);
    expect(addressRefusal('127.0.0.1', 'localhost', config!.webhooks.allowed)).toBe('localhost resolves to 127.0.0.1, a loopback address');
    const sealed = sealSecret(config!.webhooks.secretsKey, 'whsec_x');
    expect(openSecret(Buffer.from(DEV_WEBHOOK_SECRETS_KEY, 'base64'), sealed)).toBe('whsec_x');
  });

  test('the allow-list and the timeout are read; the key in base64 or base64url', () => {
    const key = randomBytes(32);
    const { config } = start({ WEBHOOK_ALLOWED_TARGETS: 'hooks.internal, 10.0.0.0/8', WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_SECRETS_KEY: key.toString('base64url') });
    expect(config!.webhooks.timeoutMs).toBe(5000);
    expect(config!.webhooks.allowed.entries).toEqual(['hooks.internal', '10.0.0.0/8']);
    expect(addressRefusal('10.1.2.3', 'x.example', config!.webhooks.allowed)).toBeNull();
    expect(addressRefusal('192.168.0.1', 'hooks.internal', config!.webhooks.allowed)).toBeNull();
    expect(openSecret(key, sealSecret(config!.webhooks.secretsKey, 'whsec_y'))).toBe('whsec_y');
    expect(start({ WEBHOOK_SECRETS_KEY: key.toString('base64') }).issues).toEqual([]);
  });

  test('a bad allow-list entry fails the start-up, each named', () => {
    expect(start({ WEBHOOK_ALLOWED_TARGETS: 'ok.example, 10.0.0.0/40, http://x' }).issues).toEqual([
      'WEBHOOK_ALLOWED_TARGETS: "10.0.0.0/40" is no CIDR (an IPv4 or IPv6 address, "/" and a prefix length of at most 32 or 128)',
      'WEBHOOK_ALLOWED_TARGETS: "http://x" is no CIDR (an IPv4 or IPv6 address, "/" and a prefix length of at most 32 or 128)',
    ]);
  });

  test('a key that is not 32 bytes of base64, and a timeout out of bounds, fail the start-up', () => {
    expect(start({ WEBHOOK_SECRETS_KEY: randomBytes(16).toString('base64') }).issues).toEqual(['WEBHOOK_SECRETS_KEY: must be the base64 of 32 bytes']);
    expect(start({ WEBHOOK_SECRETS_KEY: 'not base64!'.repeat(4) }).issues).toEqual(['WEBHOOK_SECRETS_KEY: must be the base64 of 32 bytes']);
    expect(start({ WEBHOOK_TIMEOUT_MS: '60000' }).issues).toEqual([expect.stringMatching(/^WEBHOOK_TIMEOUT_MS: /)]);
  });

  test('in production the key is required, and neither the development key nor a repetitive one is taken', () => {
    const env = production();
    expect(start(env).issues).toEqual(['WEBHOOK_SECRETS_KEY: must be set in production (base64 of 32 random bytes)']);
    expect(start({ ...env, WEBHOOK_SECRETS_KEY: DEV_WEBHOOK_SECRETS_KEY }).issues).toEqual(['WEBHOOK_SECRETS_KEY: is the development key']);
    expect(start({ ...env, WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') }).issues).toEqual(['WEBHOOK_SECRETS_KEY: is not random enough']);
    const key = randomBytes(32);
    const { config, issues } = start({ ...env, WEBHOOK_SECRETS_KEY: key.toString('base64') });
    expect(issues).toEqual([]);
    expect(openSecret(key, sealSecret(config!.webhooks.secretsKey, 'whsec_z'))).toBe('whsec_z');
  });
});
