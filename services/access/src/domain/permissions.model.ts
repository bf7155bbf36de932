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
  /** Grows with every change: the order of the history and the key its pages start after. */
  id: number;
  userId: number;
  actorId: number;
  fromRole: QueueRole | null;
  toRole: QueueRole | null;
  at: Date;
}

/** Changes of a queue's permissions, oldest first, and how many the queue has (counted up to a cap). */
export interface PermissionHistory {
  items: PermissionChangeRecord[];
  total: number;
}

/** One keyset page of the changes: `nextAfterId` null on the last page. */
export interface PermissionHistoryPage extends PermissionHistory {
  nextAfterId: number | null;
}
