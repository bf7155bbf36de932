import { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { statementTimeoutEnv } from './postgres';
import { DEV_PUBLIC_KEYS, devSeedOf, devTrustedKeysText, parseTrustedKeys, SIGNERS, signingKeyFromSeed, type Signer, type SigningKey, type TrustedKeys } from '@tracker/signing';

/**
 * Parses the environment once at start-up into a frozen, typed object.
 * On failure the process exits listing every invalid variable, so a bad
 * deployment fails loudly before it takes traffic.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
  exit: (code: number) => never = process.exit,
): Readonly<z.output<S>> {
  const result = schema.safeParse(env);
  if (result.success) return deepFreeze(result.data);
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`);
  process.stderr.write(`Invalid configuration:\n${lines.join('\n')}\n`);
  return exit(78);
}

function deepFreeze<T>(value: T): T {
  // A key is a handle Node fills in on first use (its type, cached on the object): left unfrozen.
  if (value instanceof KeyObject) return value;
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Env fields every service shares (ports, URLs, local defaults: docs/configuration.md). */
export const commonEnv = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** This part's Ed25519 private key (@tracker/signing); unset outside production: its development key. */
  INTERNAL_SIGNING_KEY: z.string().optional(),
  /** Every part's public keys, `signer:key,...`; unset outside production: the development keys. */
  INTERNAL_TRUSTED_KEYS: z.string().optional(),
  /**
   * How this part vouches for its tickets (principal.ts): `tagged` (HMAC under the key it
   * shares with the receiver) or `signed` (Ed25519, which a service from before tagged
   * tickets also accepts: for a rolling upgrade, until every part runs this version).
   */
  INTERNAL_TICKETS: z.enum(['tagged', 'signed']).default('tagged'),
  /** Port of the separate /metrics listener (Prometheus); unset = none. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  /** Open connections the HTTP server holds at most; past it new ones are closed at once (Node's server.maxConnections). */
  MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(8192),
};

/** The part of every service's config built from commonEnv (and PORT) and its keys. */
export const serviceConfigOf = (env: z.output<z.ZodObject<typeof commonEnv>> & { PORT: number; internal: InternalKeys }) => ({
  env: env.NODE_ENV,
  http: { host: env.HOST, port: env.PORT, shutdownGraceMs: env.SHUTDOWN_GRACE_MS, maxConnections: env.MAX_CONNECTIONS },
  log: { level: env.LOG_LEVEL },
  metrics: { port: env.METRICS_PORT },
  internal: env.internal,
});

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
export const url = (fallback: string) => z.url().default(fallback);

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/tracker';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** A service's own PostgreSQL schema: its URL, schema (`schema` when unset), pool size and statement bound. */
export const databaseEnv = (schema: string) => ({
  DATABASE_URL: url(DEFAULT_DATABASE_URL),
  DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier').default(schema),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** Longest a statement may run, lock waits included (503 with Retry-After past it). */
  DATABASE_STATEMENT_TIMEOUT_MS: statementTimeoutEnv(),
});

/** The `database` section of a service config, from the databaseEnv variables. */
export const databaseConfigOf = (env: {
  DATABASE_URL: string;
  DATABASE_SCHEMA: string;
  DATABASE_POOL_MAX: number;
  DATABASE_STATEMENT_TIMEOUT_MS: number;
}) => ({ url: env.DATABASE_URL, schema: env.DATABASE_SCHEMA, poolMax: env.DATABASE_POOL_MAX, statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS });

/** The Redis a service shares with the others (caches, accepted tickets). */
export const redisEnv = {
  REDIS_URL: url(DEFAULT_REDIS_URL),
};

export interface InternalKeys {
  /** What this part signs with. */
  key: SigningKey;
  /** Whom it believes. */
  trusted: TrustedKeys;
  /** Whether its tickets are tagged (the default) or signed (INTERNAL_TICKETS). */
  tagTickets: boolean;
}

type KeyEnv = { NODE_ENV?: string; INTERNAL_SIGNING_KEY?: string; INTERNAL_TRUSTED_KEYS?: string; INTERNAL_TICKETS?: string };

/** The keys of `signer` as configured, development keys where unset (refused in production by serviceEnv). */
export function internalKeysOf(signer: Signer, env: KeyEnv): InternalKeys {
  return {
    key: signingKeyFromSeed(signer, env.INTERNAL_SIGNING_KEY ?? devSeedOf(signer)),
    trusted: parseTrustedKeys(env.INTERNAL_TRUSTED_KEYS ?? devTrustedKeysText()),
    tagTickets: env.INTERNAL_TICKETS !== 'signed',
  };
}

/** Checks the key variables; in production they are required and the development keys refused. */
function checkKeys(signer: Signer, env: KeyEnv, ctx: z.RefinementCtx) {
  const production = env.NODE_ENV === 'production';
  const seed = env.INTERNAL_SIGNING_KEY;
  let ownPublicKey: string | undefined;
  if (seed === undefined) {
    if (production) ctx.addIssue({ code: 'custom', path: ['INTERNAL_SIGNING_KEY'], message: 'must be set in production' });
  } else {
    try {
      const key = signingKeyFromSeed(signer, seed);
      ownPublicKey = key.publicKey;
      if (production && DEV_PUBLIC_KEYS.has(key.publicKey)) ctx.addIssue({ code: 'custom', path: ['INTERNAL_SIGNING_KEY'], message: 'is a development key' });
      else if (production && new Set(Buffer.from(seed, 'base64url')).size < 16) ctx.addIssue({ code: 'custom', path: ['INTERNAL_SIGNING_KEY'], message: 'is not random enough' });
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['INTERNAL_SIGNING_KEY'], message: (err as Error).message });
    }
  }
  const trusted = env.INTERNAL_TRUSTED_KEYS;
  if (trusted === undefined) {
    if (production) ctx.addIssue({ code: 'custom', path: ['INTERNAL_TRUSTED_KEYS'], message: 'must be set in production' });
    return;
  }
  try {
    const keys = parseTrustedKeys(trusted);
    if (!production) return;
    const missing = SIGNERS.filter((name) => !keys.has(name));
    if (trusted.split(',').some((entry) => DEV_PUBLIC_KEYS.has(entry.trim().split(':')[1] ?? ''))) {
      ctx.addIssue({ code: 'custom', path: ['INTERNAL_TRUSTED_KEYS'], message: 'names a development key' });
    } else if (missing.length > 0) {
      // Every part must be known, or its calls and its signed data fail everywhere at run time.
      ctx.addIssue({ code: 'custom', path: ['INTERNAL_TRUSTED_KEYS'], message: `names no key of ${missing.join(', ')}` });
    } else if (ownPublicKey !== undefined && !trusted.split(',').some((entry) => entry.trim() === `${signer}:${ownPublicKey}`)) {
      ctx.addIssue({ code: 'custom', path: ['INTERNAL_TRUSTED_KEYS'], message: `does not list this part's own public key (${signer})` });
    }
  } catch (err) {
    ctx.addIssue({ code: 'custom', path: ['INTERNAL_TRUSTED_KEYS'], message: (err as Error).message });
  }
}

/** Passwords that ship with the software this system uses, or with this repository's examples. */
const KNOWN_PASSWORDS = new Set(['guest', 'postgres', 'password', 'secret', 'tracker', 'redis', 'rabbitmq', 'admin', 'changeme', 'example']);

/**
 * A secret too weak for production: shorter than 16 characters, or under 64 bits by a
 * per-character frequency estimate ("a" x 32 has none), or a known default.
 */
export function weakSecret(value: string): boolean {
  if (value.length < 16 || KNOWN_PASSWORDS.has(value.toLowerCase())) return true;
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bitsPerChar = 0;
  for (const count of counts.values()) bitsPerChar -= (count / value.length) * Math.log2(count / value.length);
  return bitsPerChar * value.length < 64;
}

/** In production every connection URL carries a password, and not a weak one. */
function checkUrlSecrets(env: Record<string, unknown>, ctx: z.RefinementCtx) {
  if (env.NODE_ENV !== 'production') return;
  for (const [name, value] of Object.entries(env)) {
    if (!name.endsWith('_URL') || typeof value !== 'string' || !/^(postgres(ql)?|rediss?|amqps?):/.test(value)) continue;
    let password = '';
    try {
      password = decodeURIComponent(new URL(value).password);
    } catch {
      continue; // the field's own schema reports a malformed URL
    }
    if (!password) ctx.addIssue({ code: 'custom', path: [name], message: 'must carry a password in production' });
    else if (weakSecret(password)) ctx.addIssue({ code: 'custom', path: [name], message: 'has a default or weak password (16+ random characters needed)' });
  }
}

/**
 * A service's env schema: the common fields plus its own, and `internal`, its keys.
 * The secret checks run even when other variables are invalid, so one start-up lists
 * every problem.
 */
export function serviceEnv<Shape extends z.ZodRawShape>(signer: Signer, shape: Shape) {
  return z
    .object({ ...commonEnv, ...shape })
    .superRefine(
      (env, ctx) => {
        checkKeys(signer, env as KeyEnv, ctx);
        checkUrlSecrets(env as Record<string, unknown>, ctx);
      },
      { when: () => true },
    )
    .transform((env) => ({ ...env, internal: internalKeysOf(signer, env as KeyEnv) }));
}
