import { z } from 'zod';
import { outboxConfigOf, outboxEnv } from '@tracker/events';
import { databaseConfigOf, databaseEnv, loadConfig, port, redisEnv, serviceConfigOf, serviceEnv, url } from '@tracker/kit';

const Env = serviceEnv('access', {
  PORT: port(8081),
  ...databaseEnv('access'),
  ...outboxEnv,
  ...redisEnv,
  AUTH_CACHE_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** The address people use (setup links, the session cookie's Secure flag, same-site checks): the gateway's by default. */
  PUBLIC_URL: url('http://127.0.0.1:8080'),
  /** Failed sign-ins per email, then per client address, in 15 minutes before 429. */
  SIGN_IN_FAILURES_PER_EMAIL: z.coerce.number().int().min(1).max(1_000_000).default(10),
  SIGN_IN_FAILURES_PER_CLIENT: z.coerce.number().int().min(1).max(1_000_000).default(100),
})
  .transform((env) => ({
    ...serviceConfigOf(env),
    database: databaseConfigOf(env),
    outbox: outboxConfigOf(env),
    redis: { url: env.REDIS_URL },
    authCache: { ttlSeconds: env.AUTH_CACHE_TTL_SECONDS },
    accounts: {
      publicUrl: env.PUBLIC_URL.replace(/\/+$/, ''),
      signInFailures: { perEmail: env.SIGN_IN_FAILURES_PER_EMAIL, perClient: env.SIGN_IN_FAILURES_PER_CLIENT },
    },
  }));

export type AccessConfig = z.output<typeof Env>;

export const loadAccessConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
