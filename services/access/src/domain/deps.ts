import type { PermissionsRepository } from '../data-access/permissions.repository';
import type { SharedCache } from '../data-access/shared-cache';
import type { TokensRepository } from '../data-access/tokens.repository';
import type { UsersRepository } from '../data-access/users.repository';
import type { WorkspacesRepository } from '../data-access/workspaces.repository';

/** What the use cases of this service are given; wired once in main.ts (and in tests). */
export interface AccessDeps {
  users: UsersRepository;
  tokens: TokensRepository;
  workspaces: WorkspacesRepository;
  permissions: PermissionsRepository;
  cache: SharedCache;
}
