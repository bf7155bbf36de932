import type { WorkspaceRole } from '@tracker/kit';
import type { NewToken } from '../domain/tokens';
import type { Db } from './prisma';

export function workspacesRepository(db: Db) {
  return {
    /** A workspace with its first admin and that admin's token, all or nothing. */
    async createWithAdmin(name: string, adminName: string, token: NewToken) {
      return db.$transaction(async (tx) => {
        const workspace = await tx.workspace.create({ data: { name } });
        const user = await tx.user.create({ data: { workspaceId: workspace.id, name: adminName, role: 'admin' } });
        const created = await tx.token.create({ data: { userId: user.id, hash: token.hash, hint: token.hint } });
        return { workspaceId: workspace.id, userId: user.id, tokenId: created.id };
      });
    },

    async addUser(workspaceId: number, name: string, role: WorkspaceRole, token: NewToken) {
      return db.$transaction(async (tx) => {
        const workspace = await tx.workspace.findUnique({ where: { id: workspaceId }, select: { id: true } });
        if (!workspace) return null;
        const user = await tx.user.create({ data: { workspaceId, name, role } });
        const created = await tx.token.create({ data: { userId: user.id, hash: token.hash, hint: token.hint } });
        return { userId: user.id, tokenId: created.id };
      });
    },

    userExists(userId: number) {
      return db.user.findUnique({ where: { id: userId }, select: { id: true } });
    },
  };
}

export type WorkspacesRepository = ReturnType<typeof workspacesRepository>;
