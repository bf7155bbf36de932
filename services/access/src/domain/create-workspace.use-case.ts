import type { AccessDeps } from './deps';
import { generateToken } from './tokens';

/** Operator command: a workspace, its first admin, and a token for that admin. */
export async function createWorkspace(deps: Pick<AccessDeps, 'workspaces'>, input: { name: string; adminName: string }) {
  const token = generateToken();
  const created = await deps.workspaces.createWithAdmin(input.name, input.adminName, token);
  return { workspace_id: created.workspaceId, user_id: created.userId, token: token.token };
}
