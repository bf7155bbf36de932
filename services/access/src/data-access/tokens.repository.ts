import { authCacheKey, type WorkspaceRole } from '@tracker/kit';
import type { TokenOwner } from '../domain/model';
import type { NewToken } from '../domain/tokens';
import type { Db } from './prisma';

interface OwnerRow {
  token_id: number;
  revoked: boolean;
  user_id: number;
  workspace_id: number;
  role: WorkspaceRole;
  active: boolean;
}

const toOwner = (row: OwnerRow): TokenOwner => ({
  tokenId: row.token_id,
  revoked: row.revoked,
  userId: row.user_id,
  workspaceId: row.workspace_id,
  workspaceRole: row.role,
  active: row.active,
});

export function tokensRepository(db: Db) {
  return {
    /**
     * Finds a token's owner. With `whileLocked`, the token and user rows are held
     * FOR SHARE while it runs: a revoke or user change (which takes row locks)
     * cannot commit in between, so what `whileLocked` caches is never older than
     * the change's own cache delete that follows its commit.
     */
    async findOwner(hash: string, whileLocked?: (owner: TokenOwner) => Promise<void>): Promise<TokenOwner | null> {
      if (!whileLocked) {
        const rows = await db.$queryRaw<OwnerRow[]>`
          SELECT t.id AS token_id, t.revoked_at IS NOT NULL AS revoked, u.id AS user_id, u.workspace_id, u.role::text AS role, u.active
          FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ${hash}`;
        return rows[0] ? toOwner(rows[0]) : null;
      }
      return db.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<OwnerRow[]>`
          SELECT t.id AS token_id, t.revoked_at IS NOT NULL AS revoked, u.id AS user_id, u.workspace_id, u.role::text AS role, u.active
          FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ${hash} FOR SHARE OF t, u`;
        const owner = rows[0] ? toOwner(rows[0]) : null;
        if (owner) await whileLocked(owner);
        return owner;
      });
    },

    create(userId: number, token: NewToken) {
      return db.token.create({ data: { userId, hash: token.hash, hint: token.hint }, select: { id: true } });
    },

    /** Marks the token revoked and records its cache debt in one transaction; returns the stale cache key. */
    async revoke(tokenId: number): Promise<{ staleKeys: string[] } | null> {
      return db.$transaction(async (tx) => {
        const token = await tx.token.findUnique({ where: { id: tokenId }, select: { hash: true, revokedAt: true } });
        if (!token) return null;
        if (!token.revokedAt) await tx.token.update({ where: { id: tokenId }, data: { revokedAt: new Date() } });
        const staleKeys = [authCacheKey(token.hash)];
        await tx.authCacheDebt.createMany({ data: staleKeys.map((key) => ({ key })), skipDuplicates: true });
        return { staleKeys };
      });
    },
  };
}

export type TokensRepository = ReturnType<typeof tokensRepository>;
