import type { WorkspaceRole } from '@tracker/kit';

export interface User {
  id: number;
  workspaceId: number;
  name: string;
  role: WorkspaceRole;
  active: boolean;
  /** The sign-in name; null for a user made without one. */
  email: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A user's own fields as they leave the service, named and formatted as the API and the
 * integration events both carry them; the API answer (routes/json.ts) adds the workspace,
 * which an event's envelope names instead.
 */
export const userWireFields = (user: User) => ({
  id: user.id,
  name: user.name,
  role: user.role,
  active: user.active,
  email: user.email,
  created_at: user.createdAt.toISOString(),
  updated_at: user.updatedAt.toISOString(),
});

export interface Workspace {
  id: number;
  name: string;
}

export type UserWithWorkspace = User & { workspace: Workspace };

export interface UserChanges {
  name?: string;
  role?: WorkspaceRole;
  active?: boolean;
}

/** What the gateway needs to know about a token's owner on every request. */
export interface TokenOwner {
  tokenId: number;
  revoked: boolean;
  /** Null for a token that does not expire. */
  expiresAt: Date | null;
  /** For a session token (POST /auth/token): its session's times, which it dies with; null for a personal token. */
  session: { lastSeenAt: Date; expiresAt: Date; endedAt: Date | null } | null;
  userId: number;
  workspaceId: number;
  workspaceRole: WorkspaceRole;
  active: boolean;
}

/** A session found by its cookie, with what decides whether it still counts. */
export interface SessionWithUser {
  id: number;
  userId: number;
  lastSeenAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
  workspaceId: number;
  active: boolean;
  passwordHash: string | null;
}

/** What a sign-in needs of the user an email names. */
export interface SignInUser {
  id: number;
  active: boolean;
  passwordHash: string | null;
}

/** A personal token as listed (never its hash). */
export interface PersonalTokenRecord {
  id: number;
  name: string;
  hint: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}
