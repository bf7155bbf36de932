import { aclCacheKey } from '@tracker/authz';
import type { UserAcl } from '@tracker/contracts';
import { accessErrors } from './access.errors';
import type { AccessDeps } from './deps';

/**
 * Internal: a user's explicit grants, cached for the issues and statistics services.
 * They are cached while the user row is held FOR SHARE: a grant change (which takes it
 * FOR UPDATE, see set-queue-permission) cannot commit in between, so what is cached is
 * never older than that change's own cache delete, which follows its commit.
 */
export async function getUserAcl(deps: Pick<AccessDeps, 'store' | 'cache'>, userId: number): Promise<UserAcl> {
  const acl = deps.cache.isAvailable()
    ? await deps.store.transaction(async (tx) => {
        await tx.users.lockForShare(userId);
        const found = await tx.permissions.acl(userId);
        if (found) await deps.cache.store(aclCacheKey(userId), found);
        return found;
      })
    : await deps.store.permissions.acl(userId);
  if (!acl) throw accessErrors.userNotFound();
  return acl;
}
