import { aclCacheKey } from '@tracker/kit';
import type { QueueRole, UserAcl } from '@tracker/contracts';
import { buildEvent } from '@tracker/events';
import type { PermissionChangeRecord, QueueMember, QueueRef } from '../domain/permissions.model';
import { writeOutbox } from './outbox';
import type { Db } from './prisma';

// Prisma's enum names cannot contain '-'; the database stores the API's spelling.
type DbRole = 'read_only' | 'read_write' | 'admin';
const toDb = (role: QueueRole): DbRole => role.replace('-', '_') as DbRole;
const fromDb = (role: DbRole | null): QueueRole | null => (role ? (role.replace('_', '-') as QueueRole) : null);

export class QueueOwnedElsewhereError extends Error {}

export function permissionsRepository(db: Db) {
  return {
    /** Idempotent: the issues service may retry a registration. */
    async registerQueue(queue: QueueRef): Promise<void> {
      const existing = await db.queue.findUnique({ where: { id: queue.id } });
      if (existing && existing.workspaceId !== queue.workspaceId) throw new QueueOwnedElsewhereError();
      if (!existing) {
        await db.queue.createMany({ data: [{ id: queue.id, workspaceId: queue.workspaceId, key: queue.key }], skipDuplicates: true });
      }
    },

    findQueue(workspaceId: number, queueId: number): Promise<QueueRef | null> {
      return db.queue.findFirst({ where: { id: queueId, workspaceId }, select: { id: true, workspaceId: true, key: true } });
    },

    async explicitRole(queueId: number, userId: number): Promise<QueueRole | null> {
      const row = await db.queuePermission.findUnique({ where: { queueId_userId: { queueId, userId } }, select: { role: true } });
      return fromDb(row?.role ?? null);
    },

    /** Every user of the workspace with their explicit role on the queue (null if none). */
    async members(workspaceId: number, queueId: number): Promise<QueueMember[]> {
      const users = await db.user.findMany({
        where: { workspaceId },
        orderBy: { id: 'asc' },
        select: { id: true, name: true, active: true, role: true, permissions: { where: { queueId }, select: { role: true } } },
      });
      return users.map((u) => ({
        userId: u.id,
        name: u.name,
        active: u.active,
        workspaceRole: u.role,
        explicitRole: fromDb(u.permissions[0]?.role ?? null),
      }));
    },

    async history(queueId: number): Promise<PermissionChangeRecord[]> {
      const rows = await db.permissionChange.findMany({ where: { queueId }, orderBy: { id: 'asc' } });
      return rows.map((r) => ({ userId: r.userId, actorId: r.actorId, fromRole: fromDb(r.fromRole), toRole: fromDb(r.toRole), at: r.at }));
    },

    /**
     * Sets (or with null, revokes) a user's explicit role. The user row is locked FOR
     * UPDATE, which waits for any ACL lookup holding it FOR SHARE while it caches, so
     * the cache key recorded here (and deleted after commit) is never outlived by a
     * stale copy. Writes the history entry and the permission.changed event in the
     * same transaction. Returns null when nothing changed.
     */
    async setRole(input: { workspaceId: number; queueId: number; userId: number; actorId: number; role: QueueRole | null; requestId?: string }) {
      return db.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM users WHERE id = ${input.userId} FOR UPDATE`;
        const key = { queueId_userId: { queueId: input.queueId, userId: input.userId } };
        const current = await tx.queuePermission.findUnique({ where: key });
        const from = fromDb(current?.role ?? null);
        if (from === input.role) return null;
        const role = input.role ? toDb(input.role) : null;
        const saved = current
          ? await tx.queuePermission.update({ where: key, data: { role, revision: { increment: 1 } } })
          : await tx.queuePermission.create({ data: { queueId: input.queueId, userId: input.userId, role } });
        await tx.permissionChange.create({
          data: { queueId: input.queueId, userId: input.userId, actorId: input.actorId, fromRole: current?.role ?? null, toRole: role },
        });
        await writeOutbox(
          tx,
          buildEvent({
            type: 'permission.changed',
            workspaceId: input.workspaceId,
            aggregateId: `${input.queueId}:${input.userId}`,
            revision: saved.revision,
            actorId: input.actorId,
            requestId: input.requestId,
            data: { queue_id: input.queueId, user_id: input.userId, role: input.role },
          }),
        );
        const staleKeys = [aclCacheKey(input.userId)];
        await tx.authCacheDebt.createMany({ data: staleKeys.map((k) => ({ key: k })), skipDuplicates: true });
        return { staleKeys };
      });
    },

    /**
     * A user's explicit grants. With `whileLocked`, the user row is held FOR SHARE
     * while it runs (to cache the result), so no grant change commits in between.
     */
    async acl(userId: number, whileLocked?: (acl: UserAcl) => Promise<void>): Promise<UserAcl | null> {
      const read = async (client: Pick<Db, 'user' | 'queuePermission'>) => {
        const user = await client.user.findUnique({ where: { id: userId }, select: { id: true, workspaceId: true } });
        if (!user) return null;
        const grants = await client.queuePermission.findMany({
          where: { userId, role: { not: null } },
          orderBy: { queueId: 'asc' },
          select: { queueId: true, role: true },
        });
        return { user_id: user.id, workspace_id: user.workspaceId, grants: grants.map((g) => ({ queue_id: g.queueId, role: fromDb(g.role)! })) };
      };
      if (!whileLocked) return read(db);
      return db.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM users WHERE id = ${userId} FOR SHARE`;
        const acl = await read(tx);
        if (acl) await whileLocked(acl);
        return acl;
      });
    },

    /** Which of these ids are queues of the workspace. */
    async queueIdsInWorkspace(workspaceId: number, queueIds: number[]): Promise<number[]> {
      const rows = await db.queue.findMany({ where: { workspaceId, id: { in: queueIds } }, select: { id: true }, orderBy: { id: 'asc' } });
      return rows.map((r) => r.id);
    },

    /** Which of these ids are users of the workspace, and whether they are active. */
    lookupUsers(workspaceId: number, userIds: number[]) {
      return db.user.findMany({ where: { workspaceId, id: { in: userIds } }, select: { id: true, active: true }, orderBy: { id: 'asc' } });
    },
  };
}

export type PermissionsRepository = ReturnType<typeof permissionsRepository>;
