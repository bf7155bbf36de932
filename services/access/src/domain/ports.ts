import type { EventEnvelope } from '@tracker/events';
import type { QueueRole, UserAcl } from '@tracker/contracts';
import type { WorkspaceRole } from '@tracker/kit';
import type { PersonalTokenRecord, SessionWithUser, SignInUser, TokenOwner, User, UserChanges, UserWithWorkspace } from './model';
import type { PermissionChangeRecord, PermissionHistory, PermissionHistoryPage, QueueMember, QueueRef } from './permissions.model';
import type { NewToken } from './tokens';

/**
 * The ports of the use cases: what they need from storage, Redis and Argon2id, declared here so the
 * domain depends on no implementation; src/data-access implements them.
 */

/** Port: workspaces. */
export interface WorkspacesRepository {
  create(name: string): Promise<number>;
  exists(workspaceId: number): Promise<boolean>;
  /** Takes the workspace row FOR UPDATE: changes that count the workspace's admins run one at a time. */
  lock(workspaceId: number): Promise<void>;
}

/** Port: users. */
export interface UsersRepository {
  listInWorkspace(workspaceId: number): Promise<User[]>;
  findInWorkspace(workspaceId: number, userId: number): Promise<User | null>;
  findWithWorkspace(userId: number): Promise<UserWithWorkspace | null>;
  exists(userId: number): Promise<boolean>;
  /** The new user (revision 1); null when another user has the email (emailKey), and nothing is written. */
  create(user: { workspaceId: number; name: string; role: WorkspaceRole; email?: string; emailKey?: string }): Promise<(User & { revision: number }) | null>;
  findByEmailKey(emailKey: string): Promise<SignInUser | null>;
  /** Sets the email and bumps the revision; returns the user as saved, or null when another user has the email (nothing written). */
  setEmail(userId: number, email: string, emailKey: string): Promise<(User & { revision: number }) | null>;
  setPassword(userId: number, passwordHash: string): Promise<void>;
  countActiveAdmins(workspaceId: number): Promise<number>;
  /** Applies the changes and bumps the revision; returns the user as saved. */
  update(userId: number, changes: UserChanges): Promise<User & { revision: number }>;
  /** Takes the user row FOR UPDATE (a grant change), waiting for any lookup holding it FOR SHARE. */
  lockForUpdate(userId: number): Promise<void>;
  /** Takes the user row FOR SHARE (caching the user's grants): no grant change commits meanwhile. */
  lockForShare(userId: number): Promise<void>;
  /** Which of these ids are users of the workspace, and whether they are active. */
  lookup(workspaceId: number, userIds: number[]): Promise<Array<{ id: number; active: boolean }>>;
}

/** Port: personal tokens (only their SHA-256 is stored). */
export interface TokensRepository {
  findOwner(hash: string): Promise<TokenOwner | null>;
  /** findOwner holding the token and user rows FOR SHARE: a revoke or user change cannot commit meanwhile. */
  lockOwner(hash: string): Promise<TokenOwner | null>;
  create(userId: number, token: NewToken, options?: { name?: string; expiresAt?: Date | null; sessionId?: number | null }): Promise<number>;
  find(tokenId: number): Promise<{ hash: string; revoked: boolean; userId: number; sessionId: number | null } | null>;
  /** The session a token was made for (POST /auth/token), or null for a personal token (or none). */
  sessionOf(tokenId: number): Promise<number | null>;
  /** A user's personal tokens not revoked, newest first. */
  listPersonal(userId: number): Promise<PersonalTokenRecord[]>;
  findPersonal(tokenId: number, userId: number): Promise<PersonalTokenRecord | null>;
  /** The latest use of each token, never moving a time back. */
  recordUses(uses: Array<{ tokenId: number; at: Date }>): Promise<void>;
  markRevoked(tokenId: number): Promise<void>;
  hashesOfUser(userId: number): Promise<string[]>;
}

/** Port: signed-in sessions (only the hash of their cookie's id is stored). */
export interface SessionsRepository {
  create(userId: number, idHash: string, expiresAt: Date): Promise<number>;
  find(idHash: string): Promise<SessionWithUser | null>;
  /** Renews the idle time. */
  touch(sessionId: number): Promise<void>;
  /** Ends the session and revokes its tokens: their hashes. */
  end(sessionId: number): Promise<string[]>;
  /** Ends every session of the user but one (or all, with null) and revokes their tokens: their hashes. */
  endAllOfUser(userId: number, exceptSessionId: number | null): Promise<string[]>;
  /** Deletes session tokens expired before `before`, then sessions over by then that no token refers to. */
  prune(before: Date): Promise<{ tokens: number; sessions: number }>;
}

/** Port: one-time setup links (only the hash of their code is stored). */
export interface SetupLinksRepository {
  /** The user's new link; every earlier one is deleted. */
  replace(userId: number, codeHash: string, expiresAt: Date): Promise<void>;
  /** The link with this code, its row locked for the rest of the transaction. */
  take(codeHash: string): Promise<{ id: number; userId: number; expiresAt: Date; usedAt: Date | null } | null>;
  markUsed(linkId: number): Promise<void>;
  /** Deletes links used or expired before `before`. */
  prune(before: Date): Promise<number>;
}

/** Port: Argon2id (data-access/passwords.ts). */
export interface Passwords {
  hash(password: string): Promise<string>;
  /** Whether `password` matches; with no stored hash, false after the same work as a real check. */
  verify(stored: string | null, password: string): Promise<boolean>;
}

/** Port: failed sign-ins per email and per client address, shared by the replicas (data-access/sign-in-throttle.ts). */
export interface SignInThrottle {
  failures(emailKey: string, client: string): Promise<{ email: number; client: number; retryAfterSeconds: number }>;
  recordFailure(emailKey: string, client: string): Promise<void>;
}

/** Port: the queues of each workspace, registered by the issues service. */
export interface QueuesRepository {
  find(queueId: number): Promise<QueueRef | null>;
  findInWorkspace(workspaceId: number, queueId: number): Promise<QueueRef | null>;
  /** Inserts the queue unless its id is already registered. */
  register(queue: QueueRef): Promise<void>;
  /** Which of these ids are queues of the workspace. */
  idsInWorkspace(workspaceId: number, queueIds: number[]): Promise<number[]>;
}

/** Port: explicit queue roles and their history. */
export interface PermissionsRepository {
  /** The stored grant (role null once revoked), or null if there never was one. */
  grant(queueId: number, userId: number): Promise<{ role: QueueRole | null; revision: number } | null>;
  explicitRole(queueId: number, userId: number): Promise<QueueRole | null>;
  /** Writes the role (null revokes, keeping the row); returns the grant's new revision. */
  saveGrant(queueId: number, userId: number, role: QueueRole | null): Promise<number>;
  recordChange(change: Omit<PermissionChangeRecord, 'id' | 'at'> & { queueId: number }): Promise<void>;
  /** Every user of the workspace with their explicit role on the queue (null if none). */
  members(workspaceId: number, queueId: number): Promise<QueueMember[]>;
  /** The newest ISSUE_READ_LIMITS.embedded changes of the queue, oldest first, and how many there are (up to ISSUE_READ_LIMITS.counted). */
  newestHistory(queueId: number): Promise<PermissionHistory>;
  /** Up to `limit` changes after the id `afterId`, oldest first, the count, and the id the next page starts after. */
  historyPage(queueId: number, afterId: number, limit: number): Promise<PermissionHistoryPage>;
  /** A user's explicit grants; null if the user does not exist. */
  acl(userId: number): Promise<UserAcl | null>;
}

/** Port: cache keys a committed change made stale, until their Redis delete succeeded. */
export interface CacheDebtsRepository {
  record(keys: string[]): Promise<void>;
}

/** Port: the transactional outbox; a relay publishes the events after commit. */
export interface OutboxRepository {
  append(...events: EventEnvelope[]): Promise<void>;
}

/** The repositories usable inside a transaction. */
export interface Repositories {
  workspaces: WorkspacesRepository;
  users: UsersRepository;
  tokens: TokensRepository;
  sessions: SessionsRepository;
  setupLinks: SetupLinksRepository;
  queues: QueuesRepository;
  permissions: PermissionsRepository;
  cacheDebts: CacheDebtsRepository;
  outbox: OutboxRepository;
}

/** The repositories over the pool, and the same ones inside one transaction. */
export interface Store extends Repositories {
  /** COMMIT when `work` returns, ROLLBACK when it throws. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
}

/** Port: the Redis caches other services authorize from (data-access/shared-cache.ts). */
export interface AuthCache {
  /** Caching is only attempted when Redis is connected; otherwise lookups skip the row locks too. */
  isAvailable(): boolean;
  /** Stores a signed entry; a failed write is only logged. */
  store(redisKey: string, value: unknown, ttlSeconds?: number): Promise<void>;
  /** Deletes entries a committed change made stale (their debts recorded in its transaction). */
  invalidate(keys: string[]): Promise<void>;
}
