import { z } from 'zod';
import { commonEnv, DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, loadConfig, port, requireRealSecretInProduction, url } from '@tracker/kit';

const Env = z
  .object({
    ...commonEnv,
    PORT: port(8081),
    DATABASE_URL: url(DEFAULT_DATABASE_URL),
    DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier').default('access'),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    REDIS_URL: url(DEFAULT_REDIS_URL),
    AUTH_CACHE_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
    INTERNAL_SECRET_PREVIOUS: z.string().min(32).optional(),
  })
  .superRefine(requireRealSecretInProduction)
  .transform((env) => ({
    env: env.NODE_ENV,
    http: { host: env.HOST, port: env.PORT, shutdownGraceMs: env.SHUTDOWN_GRACE_MS },
    log: { level: env.LOG_LEVEL },
    database: { url: env.DATABASE_URL, schema: env.DATABASE_SCHEMA, poolMax: env.DATABASE_POOL_MAX },
    redis: { url: env.REDIS_URL },
    authCache: { ttlSeconds: env.AUTH_CACHE_TTL_SECONDS },
    internal: { secrets: [env.INTERNAL_SECRET, ...(env.INTERNAL_SECRET_PREVIOUS ? [env.INTERNAL_SECRET_PREVIOUS] : [])] },
  }));

export type AccessConfig = z.output<typeof Env>;

export const loadAccessConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
