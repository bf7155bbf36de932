import { aclCacheKey } from '@tracker/kit';
import type { UserAcl } from '@tracker/contracts';
import { accessErrors } from './access.errors';
import type { AccessDeps } from './deps';

/** Internal: a user's explicit grants, cached for the issues and statistics services. */
export async function getUserAcl(deps: Pick<AccessDeps, 'permissions' | 'cache'>, userId: number): Promise<UserAcl> {
  const acl = deps.cache.isAvailable()
    ? await deps.permissions.acl(userId, (found) => deps.cache.store(aclCacheKey(userId), found))
    : await deps.permissions.acl(userId);
  if (!acl) throw accessErrors.userNotFound();
  return acl;
}
