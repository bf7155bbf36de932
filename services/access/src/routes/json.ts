import type { PersonalToken as PersonalTokenJson, User as UserJson } from '@tracker/contracts';
import type { PersonalTokenRecord, User } from '../domain/model';

/** The domain's objects as the API's JSON (libs/contracts): the one place field names change case. */
export const userJson = (user: User): UserJson => ({
  id: user.id,
  workspace_id: user.workspaceId,
  name: user.name,
  role: user.role,
  active: user.active,
  email: user.email,
  created_at: user.createdAt.toISOString(),
  updated_at: user.updatedAt.toISOString(),
});

export const tokenJson = (token: PersonalTokenRecord): PersonalTokenJson => ({
  id: token.id,
  name: token.name,
  prefix: token.hint,
  created_at: token.createdAt.toISOString(),
  expires_at: token.expiresAt?.toISOString() ?? null,
  last_used_at: token.lastUsedAt?.toISOString() ?? null,
});
