import { z } from 'zod';

export const QueueRole = z.enum(['read-only', 'read-write', 'admin']);
export type QueueRole = z.infer<typeof QueueRole>;

const rank: Record<QueueRole, number> = { 'read-only': 1, 'read-write': 2, admin: 3 };

/** `read-only` < `read-write` < `admin`. */
export const roleAtLeast = (role: QueueRole | null, needed: QueueRole) => role !== null && rank[role] >= rank[needed];

export interface EffectiveRole {
  role: QueueRole;
  role_source: 'explicit' | 'inherited';
}

/**
 * A user's effective role on a queue: the higher of the explicit grant and the
 * inherited one (a workspace admin inherits `admin` on every queue). Null means no
 * access: the queue is hidden from the user. An inherited admin is reported as
 * `inherited` even with an explicit grant, because revoking the grant changes nothing.
 */
export function effectiveRole(workspaceRole: 'admin' | 'member', explicit: QueueRole | null): EffectiveRole | null {
  if (workspaceRole === 'admin') return { role: 'admin', role_source: 'inherited' };
  return explicit ? { role: explicit, role_source: 'explicit' } : null;
}
