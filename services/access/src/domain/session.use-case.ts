import { ACCOUNT_LIMITS } from '@tracker/contracts';
import type { AccessDeps } from './deps';
import { accessErrors } from './access.errors';
import { emailKeyOf } from './accounts.rules';
import type { UserWithWorkspace } from './model';
import { endSessions, liveSession } from './sessions';
import { generateToken } from './tokens';

type SessionDeps = Pick<AccessDeps, 'store' | 'cache' | 'clock'>;

/** GET /auth/session: who is signed in (the request renews the session's idle time), or 401. */
export async function getSession(deps: SessionDeps, cookie: string | undefined): Promise<UserWithWorkspace> {
  const session = await liveSession(deps, cookie);
  if (!session) throw accessErrors.noSession();
  await deps.store.sessions.touch(session.id);
  const user = await deps.store.users.findWithWorkspace(session.userId);
  if (!user) throw accessErrors.noSession();
  return user;
}

/**
 * POST /auth/token: a bearer token for the signed-in page, good for 15 minutes (never past
 * the session's own end), revoked with its session. The request renews the session's idle time.
 */
export async function issueSessionToken(deps: SessionDeps, cookie: string | undefined): Promise<{ token: string; expiresInSeconds: number }> {
  const session = await liveSession(deps, cookie);
  if (!session) throw accessErrors.noSession();
  await deps.store.sessions.touch(session.id);
  const now = deps.clock();
  const expiresAt = new Date(Math.min(now.getTime() + ACCOUNT_LIMITS.sessionTokenSeconds * 1000, session.expiresAt.getTime()));
  const token = generateToken();
  await deps.store.tokens.create(session.userId, token, { name: 'session', expiresAt, sessionId: session.id });
  return { token: token.token, expiresInSeconds: Math.max(1, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)) };
}

/** POST /auth/sign-out: the session and its tokens end; signing out twice is no error. */
export async function signOut(deps: SessionDeps, cookie: string | undefined): Promise<void> {
  const session = await liveSession(deps, cookie);
  if (!session) return;
  const staleKeys = await deps.store.transaction((tx) => endSessions(tx, { sessionId: session.id }));
  await deps.cache.invalidate(staleKeys);
}

/**
 * POST /auth/password: with the current password, a new one; every other session of the
 * user (and its tokens) ends. A wrong current password is 422 and counts as a failed
 * sign-in for the user's email, so a stolen session cannot guess it unthrottled.
 */
export async function changePassword(
  deps: SessionDeps & Pick<AccessDeps, 'passwords' | 'throttle' | 'accounts'>,
  cookie: string | undefined,
  input: { current_password: string; new_password: string },
  client: string,
): Promise<void> {
  const session = await liveSession(deps, cookie);
  if (!session) throw accessErrors.noSession();
  const user = await deps.store.users.findWithWorkspace(session.userId);
  const email = emailKeyOf(user?.email ?? `user-${session.userId}`);
  const failures = await deps.throttle.failures(email, client);
  const limits = deps.accounts.signInFailures;
  if (failures.email >= limits.perEmail || failures.client >= limits.perClient) throw accessErrors.signInThrottled(failures.retryAfterSeconds);
  if (!(await deps.passwords.verify(session.passwordHash, input.current_password))) {
    await deps.throttle.recordFailure(email, client);
    throw accessErrors.wrongCurrentPassword();
  }
  const passwordHash = await deps.passwords.hash(input.new_password);
  const staleKeys = await deps.store.transaction(async (tx) => {
    await tx.users.setPassword(session.userId, passwordHash);
    return endSessions(tx, { userId: session.userId, except: session.id });
  });
  await deps.cache.invalidate(staleKeys);
}
