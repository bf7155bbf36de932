import { z } from 'zod';
import { acceptedSecrets, loadConfig, port, serviceEnv } from '@tracker/kit';

const Env = serviceEnv({ PORT: port(8083) })
  .transform((env) => ({
    env: env.NODE_ENV,
    http: { host: env.HOST, port: env.PORT, shutdownGraceMs: env.SHUTDOWN_GRACE_MS },
    log: { level: env.LOG_LEVEL },
    internal: { secrets: acceptedSecrets(env) },
  }));

export type StatisticsConfig = z.output<typeof Env>;

export const loadStatisticsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
