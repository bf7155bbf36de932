import type { Router } from 'express';
import { SetupLinkRequest, UserChanges, UserInvite } from '@tracker/contracts';
import { parseBody, parseId, principalOf } from '@tracker/kit';
import type { AccessDeps } from '../domain/deps';
import { getMe } from '../domain/get-me.use-case';
import { listUsers } from '../domain/list-users.use-case';
import { updateUser } from '../domain/update-user.use-case';
import { assertWorkspaceAdmin } from '../domain/users.rules';
import { inviteUser, issueSetupLink } from '../domain/invite-user.use-case';
import { invitedUserJson, meJson, userJson } from './json';

export function usersRoutes(router: Router, deps: AccessDeps): void {
  router.get('/api/v1/me', async (_req, res) => {
    res.json(meJson(await getMe(deps, principalOf(res))));
  });

  router.get('/api/v1/users', async (_req, res) => {
    const users = await listUsers(deps, principalOf(res));
    res.json(users.map(userJson));
  });

  router.post('/api/v1/users', async (req, res) => {
    const caller = principalOf(res);
    assertWorkspaceAdmin(caller);
    const { user, setupUrl } = await inviteUser(deps, caller, parseBody(UserInvite, req.body), res.locals.requestId);
    res.status(201).json(invitedUserJson(user, setupUrl));
  });

  router.post('/api/v1/users/:user_id/setup-link', async (req, res) => {
    const caller = principalOf(res);
    assertWorkspaceAdmin(caller);
    const userId = parseId('user_id', req.params.user_id);
    // The body is optional: none (read as no bytes), or `{}`, keeps the user's email.
    const { email } = parseBody(SetupLinkRequest, Buffer.isBuffer(req.body) || req.body === undefined ? {} : req.body);
    const { setupUrl } = await issueSetupLink(deps, caller, userId, email, res.locals.requestId);
    res.json({ setup_url: setupUrl });
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
