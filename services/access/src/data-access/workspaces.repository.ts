import { prepared, type Sql } from '@tracker/kit';
import type { WorkspacesRepository } from '../domain/ports';

export function workspacesRepository(c: Sql): WorkspacesRepository {
  return {
    async create(name) {
      const rows = await prepared<{ id: number }>(c, 'workspaces.create', `INSERT INTO workspaces (name) VALUES ($1) RETURNING id`, [name]);
      return rows[0]!.id;
    },

    async exists(workspaceId) {
      const rows = await prepared(c, 'workspaces.exists', `SELECT id FROM workspaces WHERE id = $1`, [workspaceId]);
      return rows.length > 0;
    },

    async lock(workspaceId) {
      await prepared(c, 'workspaces.lock', `SELECT id FROM workspaces WHERE id = $1 FOR UPDATE`, [workspaceId]);
    },
  };
}
