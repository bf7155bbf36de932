import type { AccessDeps } from './deps';

/** What is over is kept this long (a day), then deleted: enough to look into yesterday, never a growing table. */
const KEEP_MS = 24 * 3_600_000;

/**
 * A signed-in page makes a session token every 15 minutes, and sessions and setup links
 * end: what is over is deleted a day later, by every replica alike (the statements are
 * idempotent), so these tables hold what is live and little more.
 */
export async function pruneSignIns(deps: Pick<AccessDeps, 'store' | 'clock'>) {
  const before = new Date(deps.clock().getTime() - KEEP_MS);
  const { tokens, sessions } = await deps.store.sessions.prune(before);
  const setupLinks = await deps.store.setupLinks.prune(before);
  return { tokens, sessions, setupLinks };
}
