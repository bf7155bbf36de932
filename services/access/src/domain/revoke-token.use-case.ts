import { authCacheKey } from '@tracker/authz';
import { accessErrors } from './access.errors';
import type { AccessDeps } from './deps';

/**
 * Operator command: revoking is idempotent and holds for the very next request. The
 * token's cache key is recorded as a cache debt in the same transaction, so a failed
 * cache delete after commit is retried rather than forgotten.
 */
export async function revokeToken(deps: Pick<AccessDeps, 'store' | 'cache'>, input: { tokenId: number }) {
  const staleKeys = await deps.store.transaction(async (tx) => {
    const token = await tx.tokens.find(input.tokenId);
    if (!token) return null;
    if (!token.revoked) await tx.tokens.markRevoked(input.tokenId);
    const keys = [authCacheKey(token.hash)];
    await tx.cacheDebts.record(keys);
    return keys;
  });
  if (!staleKeys) throw accessErrors.noSuchToken(input.tokenId);
  await deps.cache.invalidate(staleKeys);
  return { token_id: input.tokenId, revoked: true as const };
}
