import { authCacheKey } from '@tracker/kit';
import type { User, UserChanges } from '../domain/model';
import { buildEvent } from '@tracker/events';
import { writeOutbox } from './outbox';
import type { Db, Tx } from './prisma';

export interface GuardedChange {
  /** Called under the workspace lock with fresh rows; throws to refuse, returns what to write. */
  decide: (input: { actor: User | null; target: User | null; activeAdmins: number }) => UserChanges;
}

export function usersRepository(db: Db) {
  return {
    listInWorkspace(workspaceId: number): Promise<User[]> {
      return db.user.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } });
    },

    findInWorkspace(workspaceId: number, userId: number): Promise<User | null> {
      return db.user.findFirst({ where: { id: userId, workspaceId } });
    },

    async findWithWorkspace(userId: number) {
      return db.user.findUnique({ where: { id: userId }, include: { workspace: { select: { id: true, name: true } } } });
    },

    /**
     * Changes a user while holding the workspace row lock, so rules that count
     * admins (two admins demoting each other at once) see every committed change.
     * Returns the cache keys of the user's principals, now stale; they are also
     * recorded as cache debts in the same transaction, so a failed cache delete
     * after commit is retried rather than forgotten.
     */
    async changeInWorkspace(workspaceId: number, actorId: number, targetId: number, guard: GuardedChange, requestId?: string) {
      return db.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`;
        const [actor, target, activeAdmins] = await Promise.all([
          tx.user.findFirst({ where: { id: actorId, workspaceId } }),
          tx.user.findFirst({ where: { id: targetId, workspaceId } }),
          tx.user.count({ where: { workspaceId, role: 'admin', active: true } }),
        ]);
        const changes = guard.decide({ actor, target, activeAdmins });
        if (!target || Object.keys(changes).length === 0) return { user: target, staleKeys: [] as string[] };
        const user = await tx.user.update({ where: { id: target.id }, data: { ...changes, revision: { increment: 1 } } });
        await writeOutbox(
          tx,
          buildEvent({
            type: 'user.updated',
            workspaceId,
            aggregateId: user.id,
            revision: user.revision,
            actorId,
            requestId,
            data: { user: { id: user.id, name: user.name, role: user.role, active: user.active } },
          }),
        );
        const staleKeys = await recordCacheDebts(tx, target.id);
        return { user, staleKeys };
      });
    },
  };
}

async function recordCacheDebts(tx: Tx, userId: number): Promise<string[]> {
  const tokens = await tx.token.findMany({ where: { userId }, select: { hash: true } });
  const keys = tokens.map((t) => authCacheKey(t.hash));
  if (keys.length > 0) {
    await tx.authCacheDebt.createMany({ data: keys.map((key) => ({ key })), skipDuplicates: true });
  }
  return keys;
}

export type UsersRepository = ReturnType<typeof usersRepository>;
