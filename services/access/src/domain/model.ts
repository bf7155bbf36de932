import type { WorkspaceRole } from '@tracker/kit';

export interface User {
  id: number;
  workspaceId: number;
  name: string;
  role: WorkspaceRole;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

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
  userId: number;
  workspaceId: number;
  workspaceRole: WorkspaceRole;
  active: boolean;
}
