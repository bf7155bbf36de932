import type { Router } from 'express';
import { UserChanges, type User as UserJson, type Me as MeJson } from '@tracker/contracts';
import { parseBody, parseId, principalOf } from '@tracker/kit';
import type { AccessDeps } from '../domain/deps';
import { getMe } from '../domain/get-me.use-case';
import { listUsers } from '../domain/list-users.use-case';
import type { User } from '../domain/model';
import { updateUser } from '../domain/update-user.use-case';
import { assertWorkspaceAdmin } from '../domain/users.rules';

export const userJson = (user: User): UserJson => ({
  id: user.id,
  workspace_id: user.workspaceId,
  name: user.name,
  role: user.role,
  active: user.active,
  created_at: user.createdAt.toISOString(),
  updated_at: user.updatedAt.toISOString(),
});

export function usersRoutes(router: Router, deps: AccessDeps): void {
  router.get('/api/v1/me', async (_req, res) => {
    const me = await getMe(deps, principalOf(res));
    const body: MeJson = { ...userJson(me), workspace: { id: me.workspace.id, name: me.workspace.name } };
    res.json(body);
  });

  router.get('/api/v1/users', async (_req, res) => {
    const users = await listUsers(deps, principalOf(res));
    res.json(users.map(userJson));
  });

  router.patch('/api/v1/users/:user_id', async (req, res) => {
    const caller = principalOf(res);
    // A member is refused before anything about the target or the body is looked at.
    assertWorkspaceAdmin(caller);
    const userId = parseId('user_id', req.params.user_id);
    const changes = parseBody(UserChanges, req.body);
    res.json(userJson(await updateUser(deps, caller, userId, changes, res.locals.requestId)));
  });
}
