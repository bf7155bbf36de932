import { z } from 'zod';
import { outboxConfigOf, outboxEnv } from '@tracker/events';
import { databaseConfigOf, databaseEnv, loadConfig, port, redisEnv, serviceConfigOf, serviceEnv, url } from '@tracker/kit';

const Env = serviceEnv('issues', {
  PORT: port(8082),
  ...databaseEnv('issues'),
  ...outboxEnv,
  ...redisEnv,
  ACCESS_URL: url('http://127.0.0.1:8081'),
  ACCESS_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
})
  .transform((env) => ({
    ...serviceConfigOf(env),
    database: databaseConfigOf(env),
    outbox: outboxConfigOf(env),
    redis: { url: env.REDIS_URL },
    access: { url: env.ACCESS_URL, timeoutMs: env.ACCESS_TIMEOUT_MS },
  }));

export type IssuesConfig = z.output<typeof Env>;

export const loadIssuesConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
