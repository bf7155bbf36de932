import { parseArgs } from 'node:util';
import { z } from 'zod';
import { AppError, type Logger } from '@tracker/kit';
import { Email } from '@tracker/contracts';
import { addUser } from '../domain/add-user.use-case';
import { issueSetupLink } from '../domain/invite-user.use-case';
import { createToken } from '../domain/create-token.use-case';
import { createWorkspace } from '../domain/create-workspace.use-case';
import type { AccessDeps } from '../domain/deps';
import { revokeToken } from '../domain/revoke-token.use-case';

/**
 * Operator command line (docs/decisions.md: The operator command line). With --json the last line printed is one
 * JSON object; other tools rely on that contract.
 */
const USAGE = `Usage: pnpm -s admin <command> [options] [--json]
  workspace create --name NAME --admin-name NAME [--admin-email EMAIL]
  user add --workspace ID --name NAME [--email EMAIL] [--role member|admin]
  user setup-link --user ID [--email EMAIL]
  token create --user ID
  token revoke --token-id ID`;

const EXIT_USAGE = 64;

class UsageError extends Error {}

const name = z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const id = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/, 'must be an integer greater than 0')
  .transform(Number)
  .refine((n) => n <= 2147483647, 'is too large');

interface Command {
  options: Record<string, { type: 'string' }>;
  input: z.ZodType;
  run: (deps: AccessDeps, input: any) => Promise<Record<string, unknown>>;
  describe: (result: any) => string;
}

const commands: Record<string, Command> = {
  'workspace create': {
    options: { name: { type: 'string' }, 'admin-name': { type: 'string' }, 'admin-email': { type: 'string' } },
    input: z.object({ name, 'admin-name': name, 'admin-email': Email.optional() }).transform((o) => ({ name: o.name, adminName: o['admin-name'], adminEmail: o['admin-email'] })),
    run: createWorkspace,
    describe: (r) => `Workspace ${r.workspace_id} created; admin user ${r.user_id}.\nToken (shown once): ${r.token}${setupLine(r)}`,
  },
  'user add': {
    options: { workspace: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
    input: z
      .object({ workspace: id, name, email: Email.optional(), role: z.enum(['member', 'admin']).default('member') })
      .transform((o) => ({ workspaceId: o.workspace, name: o.name, role: o.role, email: o.email })),
    run: addUser,
    describe: (r) => `User ${r.user_id} added.\nToken (shown once): ${r.token}${setupLine(r)}`,
  },
  'user setup-link': {
    options: { user: { type: 'string' }, email: { type: 'string' } },
    input: z.object({ user: id, email: Email.optional() }).transform((o) => ({ userId: o.user, email: o.email })),
    run: async (deps, input: { userId: number; email?: string }) => {
      const { userId, setupUrl } = await issueSetupLink(deps, 'operator', input.userId, input.email);
      return { user_id: userId, setup_url: setupUrl };
    },
    describe: (r) => `Setup link for user ${r.user_id} (good for 72 hours, once; earlier links are void):\n${r.setup_url}`,
  },
  'token create': {
    options: { user: { type: 'string' } },
    input: z.object({ user: id }).transform((o) => ({ userId: o.user })),
    run: createToken,
    describe: (r) => `Token ${r.token_id} created.\nToken (shown once): ${r.token}`,
  },
  'token revoke': {
    options: { 'token-id': { type: 'string' } },
    input: z.object({ 'token-id': id }).transform((o) => ({ tokenId: o['token-id'] })),
    run: revokeToken,
    describe: (r) => `Token ${r.token_id} revoked.`,
  },
};

/** The setup link line of an answer that has one: hand it to the person, who sets a password there. */
const setupLine = (r: { setup_url?: string }) => (r.setup_url ? `\nSetup link (good for 72 hours, once): ${r.setup_url}` : '');

function parse(argv: string[]) {
  const key = argv.slice(0, 2).join(' ');
  const command = commands[key];
  if (!command) throw new UsageError(argv.length ? `Unknown command: ${key}` : 'No command given.');
  let parsed;
  try {
    parsed = parseArgs({ args: argv.slice(2), options: { ...command.options, json: { type: 'boolean' } }, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { json, ...values } = parsed.values;
  const input = command.input.safeParse(values);
  if (!input.success) {
    const given = values as Record<string, unknown>;
    const problems = input.error.issues.map((i) => {
      const option = String(i.path[0]);
      return `--${option}: ${given[option] === undefined ? 'is required' : i.message}`;
    });
    throw new UsageError(problems.join('\n'));
  }
  return { command, input: input.data, json: Boolean(json) };
}

async function waitForRedis(redis: { status: string; once: (e: string, f: () => void) => void }, ms: number) {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function main(argv: string[]): Promise<number> {
  let request;
  try {
    request = parse(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  // Loaded only now, so a usage error answers without opening database and Redis connections.
  const { createAccessService } = await import('../app');
  const { loadAccessConfig } = await import('../config');
  const config = loadAccessConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' });
  const service = createAccessService(config);
  try {
    // A revoke must reach the auth cache now if it can; otherwise the service retries it.
    await waitForRedis(service.redis, 1000);
    const result = await request.command.run(service.deps, request.input);
    process.stdout.write(request.json ? `${JSON.stringify(result)}\n` : `${request.command.describe(result)}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`Error: ${describeError(err, service.logger)}\n`);
    return 1;
  } finally {
    await service.close();
  }
}

function describeError(err: unknown, logger: Logger): string {
  if (err instanceof AppError) return err.detail;
  const code = (err as { code?: string })?.code;
  if (code === '42P01' || /does not exist/.test(String((err as Error)?.message))) {
    return 'the database is not migrated: run `pnpm migrate` first.';
  }
  if (code === 'ECONNREFUSED' || /ECONNREFUSED|connect/i.test(String((err as Error)?.message))) {
    return 'cannot reach PostgreSQL (check DATABASE_URL).';
  }
  logger.error({ err }, 'operator command failed');
  return (err as Error)?.message ?? String(err);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`Error: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
