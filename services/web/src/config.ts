import path from 'node:path';
import fs from 'node:fs';
import { z } from 'zod';
import { commonEnv, loadConfig, port } from '@tracker/kit';

/**
 * The web service signs nothing and calls nothing: it serves the built app. So it takes
 * the common settings without the keys (INTERNAL_*), and where the built files are.
 */
const { NODE_ENV, HOST, LOG_LEVEL, METRICS_PORT, SHUTDOWN_GRACE_MS, MAX_CONNECTIONS } = commonEnv;

/** dist/public beside the compiled server (dist/main.js), or, run from its sources, the last build's. */
function defaultStaticDir(): string {
  const beside = path.join(__dirname, 'public');
  return fs.existsSync(beside) ? beside : path.resolve(__dirname, '../dist/public');
}

const Env = z
  .object({
    NODE_ENV,
    HOST,
    LOG_LEVEL,
    METRICS_PORT,
    SHUTDOWN_GRACE_MS,
    MAX_CONNECTIONS,
    PORT: port(8085),
    /** The built app (index.html, assets/): what `node scripts/build.mjs web` writes to dist/public. */
    WEB_STATIC_DIR: z.string().min(1).optional(),
  })
  .transform((env) => ({
    env: env.NODE_ENV,
    http: { host: env.HOST, port: env.PORT, shutdownGraceMs: env.SHUTDOWN_GRACE_MS, maxConnections: env.MAX_CONNECTIONS },
    log: { level: env.LOG_LEVEL },
    metrics: { port: env.METRICS_PORT },
    staticDir: path.resolve(env.WEB_STATIC_DIR ?? defaultStaticDir()),
  }));

export type WebConfig = z.output<typeof Env>;

export const loadWebConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(Env, env);
