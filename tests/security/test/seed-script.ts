/**
 * The operator command line's use cases, many in one process: each `pnpm -s admin`
 * call costs about two seconds of start-up, which the security suite cannot afford
 * dozens of times. Reads a JSON list of operations from argv[2], prints a JSON list
 * of results. Run with tsx in the access service's environment (see helpers.ts).
 */
import { addUser, createAccessService, createToken, createWorkspace, loadAccessConfig, revokeToken } from '@tracker/access/operator';

export type SeedOp =
  | {
      op: 'workspace';
      name: string;
      adminName: string;
      /** `revokedToken`: also give the user a second token and revoke it (for 401 tests). */
      users: Array<{ name: string; role: 'admin' | 'member'; revokedToken?: boolean }>;
    }
  | { op: 'token-create'; userId: number }
  | { op: 'token-revoke'; tokenId: number };

async function main() {
  const ops = JSON.parse(process.argv[2] ?? '[]') as SeedOp[];
  const service = createAccessService(loadAccessConfig({ ...process.env, LOG_LEVEL: 'silent' }));
  const results: unknown[] = [];
  try {
    // As the command line does: a revoke must reach the auth cache now, so wait for Redis.
    if (service.redis.status !== 'ready') await new Promise((resolve) => service.redis.once('ready', resolve));
    for (const op of ops) {
      if (op.op === 'workspace') {
        const ws = await createWorkspace(service.deps, { name: op.name, adminName: op.adminName });
        const users = [];
        for (const user of op.users) {
          const added = await addUser(service.deps, { workspaceId: ws.workspace_id, name: user.name, role: user.role });
          let revoked_token: string | undefined;
          if (user.revokedToken) {
            const extra = await createToken(service.deps, { userId: added.user_id });
            await revokeToken(service.deps, { tokenId: extra.token_id });
            revoked_token = extra.token;
          }
          users.push({ ...added, revoked_token });
        }
        results.push({ ...ws, users });
      } else if (op.op === 'token-create') {
        results.push(await createToken(service.deps, { userId: op.userId }));
      } else {
        results.push(await revokeToken(service.deps, { tokenId: op.tokenId }));
      }
    }
  } finally {
    await service.close();
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`seed failed: ${(err as Error).stack}\n`);
    process.exit(1);
  },
);
