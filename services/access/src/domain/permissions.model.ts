import type { QueueRole } from '@tracker/contracts';
import type { WorkspaceRole } from '@tracker/kit';

export interface QueueRef {
  id: number;
  workspaceId: number;
  key: string;
}

/** A workspace user as seen from one queue's permissions. */
export interface QueueMember {
  userId: number;
  name: string;
  active: boolean;
  workspaceRole: WorkspaceRole;
  explicitRole: QueueRole | null;
}

export interface PermissionChangeRecord {
  userId: number;
  actorId: number;
  fromRole: QueueRole | null;
  toRole: QueueRole | null;
  at: Date;
}
