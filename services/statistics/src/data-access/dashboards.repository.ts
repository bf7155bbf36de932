import type { DashboardsRepository } from '../domain/deps';
import type { DashboardRecord } from '../domain/model';
import type { Dashboard as Row } from '../generated/prisma/client';
import type { Client } from './prisma';

const record = (row: Row): DashboardRecord => ({
  id: row.id,
  workspaceId: row.workspaceId,
  ownerId: row.ownerId,
  name: row.name,
  widgets: row.widgets,
  queueIds: row.queueIds,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

interface RawRow {
  id: number;
  workspace_id: number;
  owner_id: number;
  name: string;
  widgets: unknown;
  queue_ids: number[];
  created_at: Date;
  updated_at: Date;
}

export function dashboardsRepository(c: Client): DashboardsRepository {
  return {
    async listVisible(workspaceId, readable) {
      // `<@`: every queue the dashboard names is among the readable ones (an empty list always is).
      const rows = readable
        ? await c.$queryRaw<RawRow[]>`
            SELECT * FROM dashboards WHERE workspace_id = ${workspaceId} AND queue_ids <@ ${readable}::int[] ORDER BY id`
        : await c.$queryRaw<RawRow[]>`
            SELECT * FROM dashboards WHERE workspace_id = ${workspaceId}
              AND queue_ids <@ ARRAY(SELECT id FROM queues WHERE workspace_id = ${workspaceId}) ORDER BY id`;
      return rows.map((r) => ({
        id: r.id,
        workspaceId: r.workspace_id,
        ownerId: r.owner_id,
        name: r.name,
        widgets: r.widgets,
        queueIds: r.queue_ids,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
      }));
    },
    async find(workspaceId, id) {
      const row = await c.dashboard.findFirst({ where: { id, workspaceId } });
      return row ? record(row) : null;
    },
    async create(d) {
      return record(
        await c.dashboard.create({
          data: { workspaceId: d.workspaceId, ownerId: d.ownerId, name: d.name, widgets: d.widgets as never, queueIds: d.queueIds },
        }),
      );
    },
    async replace(id, changes, at) {
      return record(
        await c.dashboard.update({ where: { id }, data: { name: changes.name, widgets: changes.widgets as never, queueIds: changes.queueIds, updatedAt: at } }),
      );
    },
  };
}
