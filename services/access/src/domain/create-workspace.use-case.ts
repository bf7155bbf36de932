import type { AccessDeps } from './deps';
import { accessErrors } from './access.errors';
import { emailKeyOf } from './accounts.rules';
import { newSetupLink } from './invite-user.use-case';
import { generateToken } from './tokens';
import { userCreatedEvent } from './events';

/**
 * Operator command: a workspace, its first admin, and a token for that admin, all or
 * nothing; with the admin's email, also the setup link through which they set a password
 * and sign in (then make their own tokens).
 */
export async function createWorkspace(deps: Pick<AccessDeps, 'store' | 'clock' | 'accounts'>, input: { name: string; adminName: string; adminEmail?: string }) {
  const token = generateToken();
  const created = await deps.store.transaction(async (tx) => {
    const workspaceId = await tx.workspaces.create(input.name);
    const email = input.adminEmail;
    const admin = await tx.users.create({ workspaceId, name: input.adminName, role: 'admin', email, emailKey: email && emailKeyOf(email) });
    if (admin === null) throw accessErrors.emailTaken();
    await tx.tokens.create(admin.id, token);
    // Made by the operator: no user of the workspace is its author.
    await tx.outbox.append(userCreatedEvent(admin, null));
    const setupUrl = email ? await newSetupLink(deps, tx, admin.id) : undefined;
    return { workspaceId, userId: admin.id, setupUrl };
  });
  return { workspace_id: created.workspaceId, user_id: created.userId, token: token.token, ...(created.setupUrl ? { setup_url: created.setupUrl } : {}) };
}
