import { z } from 'zod';
import { commonEnv, loadConfig, port, requireRealSecretInProduction } from '@tracker/kit';

const Env = z
  .object({ ...commonEnv, PORT: port(8082), INTERNAL_SECRET_PREVIOUS: z.string().min(32).optional() })
  .superRefine(requireRealSecretInProduction)
  .transform((env) => ({
    env: env.NODE_ENV,
    http: { host: env.HOST, port: env.PORT, shutdownGraceMs: env.SHUTDOWN_GRACE_MS },
    log: { level: env.LOG_LEVEL },
    internal: { secrets: [env.INTERNAL_SECRET, ...(env.INTERNAL_SECRET_PREVIOUS ? [env.INTERNAL_SECRET_PREVIOUS] : [])] },
  }));

export type IssuesConfig = z.output<typeof Env>;

export const loadIssuesConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
