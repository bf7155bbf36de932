import type { WorkspaceRole } from '@tracker/kit';
import type { AccessDeps } from './deps';
import { accessErrors } from './access.errors';
import { emailKeyOf } from './accounts.rules';
import { newSetupLink } from './invite-user.use-case';
import { generateToken } from './tokens';
import { userCreatedEvent } from './events';

/** Operator command: a new user in a workspace, with a first token; with an email, also their setup link. */
export async function addUser(deps: Pick<AccessDeps, 'store' | 'clock' | 'accounts'>, input: { workspaceId: number; name: string; role: WorkspaceRole; email?: string }) {
  const token = generateToken();
  const created = await deps.store.transaction(async (tx) => {
    if (!(await tx.workspaces.exists(input.workspaceId))) return null;
    const email = input.email;
    const user = await tx.users.create({ workspaceId: input.workspaceId, name: input.name, role: input.role, email, emailKey: email && emailKeyOf(email) });
    if (user === null) throw accessErrors.emailTaken();
    await tx.tokens.create(user.id, token);
    // Made by the operator: no user of the workspace is its author.
    await tx.outbox.append(userCreatedEvent(user, null));
    return { id: user.id, setupUrl: email ? await newSetupLink(deps, tx, user.id) : undefined };
  });
  if (created === null) throw accessErrors.noSuchWorkspace(input.workspaceId);
  return { user_id: created.id, token: token.token, ...(created.setupUrl ? { setup_url: created.setupUrl } : {}) };
}
