import { z } from 'zod';
import { databaseConfigOf, databaseEnv, loadConfig, outboxConfigOf, outboxEnv, port, redisEnv, serviceConfigOf, serviceEnv } from '@tracker/kit';

const Env = serviceEnv('access', {
  PORT: port(8081),
  ...databaseEnv('access'),
  ...outboxEnv,
  ...redisEnv,
  AUTH_CACHE_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
})
  .transform((env) => ({
    ...serviceConfigOf(env),
    database: databaseConfigOf(env),
    outbox: outboxConfigOf(env),
    redis: { url: env.REDIS_URL },
    authCache: { ttlSeconds: env.AUTH_CACHE_TTL_SECONDS },
  }));

export type AccessConfig = z.output<typeof Env>;

export const loadAccessConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
