import { authCacheKey } from '@tracker/authz';
import type { AccessDeps } from './deps';
import type { Repositories } from './ports';
import { isSessionLive, sessionExpiry } from './accounts.rules';
import type { SessionWithUser } from './model';
import { hashSecret, isSecretShaped, newSecret } from './secrets';

/** A new session for the user: the id for the cookie (never stored as such). */
export async function startSession(deps: Pick<AccessDeps, 'store' | 'clock'>, userId: number): Promise<{ sessionId: string }> {
  const sessionId = newSecret();
  await deps.store.sessions.create(userId, hashSecret(sessionId), sessionExpiry(deps.clock()));
  return { sessionId };
}

/** The session a cookie names, if it still counts: not ended, not idle or expired, its user active. */
export async function liveSession(deps: Pick<AccessDeps, 'store' | 'clock'>, cookie: string | undefined): Promise<SessionWithUser | null> {
  if (cookie === undefined || !isSecretShaped(cookie)) return null;
  const session = await deps.store.sessions.find(hashSecret(cookie));
  return session && session.active && isSessionLive(session, deps.clock()) ? session : null;
}

/**
 * Ends sessions (one, or all of a user's but one) and revokes the tokens made for them,
 * in the caller's transaction; the cache keys of those tokens are recorded as debts there
 * and returned, to be deleted once it commits (the discipline of every revoke).
 */
export async function endSessions(tx: Repositories, which: { sessionId: number } | { userId: number; except: number | null }): Promise<string[]> {
  const hashes = 'sessionId' in which ? await tx.sessions.end(which.sessionId) : await tx.sessions.endAllOfUser(which.userId, which.except);
  const keys = hashes.map(authCacheKey);
  await tx.cacheDebts.record(keys);
  return keys;
}
