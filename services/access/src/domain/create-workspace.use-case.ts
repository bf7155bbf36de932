import type { AccessDeps } from './deps';
import { generateToken } from './tokens';

/** Operator command: a workspace, its first admin, and a token for that admin, all or nothing. */
export async function createWorkspace(deps: Pick<AccessDeps, 'store'>, input: { name: string; adminName: string }) {
  const token = generateToken();
  const created = await deps.store.transaction(async (tx) => {
    const workspaceId = await tx.workspaces.create(input.name);
    const userId = await tx.users.create({ workspaceId, name: input.adminName, role: 'admin' });
    await tx.tokens.create(userId, token);
    return { workspaceId, userId };
  });
  return { workspace_id: created.workspaceId, user_id: created.userId, token: token.token };
}
