import { z } from 'zod';

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
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Development-only signing secret, so each service can start alone on a laptop. */
export const DEV_INTERNAL_SECRET = 'tracker-development-internal-secret-do-not-use-in-production';

/** Env fields every service shares (ports, URLs, local defaults: README, Configuration). */
export const commonEnv = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  INTERNAL_SECRET: z.string().min(32, 'must be at least 32 characters').default(DEV_INTERNAL_SECRET),
  /** Still accepted on incoming principals while the signing secret is rotated. */
  INTERNAL_SECRET_PREVIOUS: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Port of the separate /metrics listener (Prometheus); unset = none. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
};

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
export const url = (fallback: string) => z.url().default(fallback);

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/tracker';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** Refuses the development secret in production. */
export function requireRealSecretInProduction(env: { NODE_ENV?: string; INTERNAL_SECRET?: string }, ctx: z.RefinementCtx) {
  if (env?.NODE_ENV === 'production' && (env.INTERNAL_SECRET ?? DEV_INTERNAL_SECRET) === DEV_INTERNAL_SECRET) {
    ctx.addIssue({ code: 'custom', path: ['INTERNAL_SECRET'], message: 'must be set in production' });
  }
}

/**
 * A service's env schema: the common fields plus its own. The production-secret
 * check runs even when other variables are invalid, so one start-up lists every problem.
 */
export function serviceEnv<Shape extends z.ZodRawShape>(shape: Shape) {
  return z
    .object({ ...commonEnv, ...shape })
    .superRefine((env, ctx) => requireRealSecretInProduction(env as never, ctx), { when: () => true });
}

/** Secrets a service accepts on the principal header: the current one first. */
export const acceptedSecrets = (env: { INTERNAL_SECRET: string; INTERNAL_SECRET_PREVIOUS?: string }) =>
  env.INTERNAL_SECRET_PREVIOUS ? [env.INTERNAL_SECRET, env.INTERNAL_SECRET_PREVIOUS] : [env.INTERNAL_SECRET];
