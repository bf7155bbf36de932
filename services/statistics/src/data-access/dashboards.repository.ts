import type { DashboardsRepository } from '../domain/deps';
import type { DashboardRecord } from '../domain/model';
import { Prisma } from '../generated/prisma/client';
import { rowsOf, type Sql } from '@tracker/kit';

/** A dashboard row as a DashboardRecord. */
const COLUMNS = Prisma.raw(
  `id, workspace_id AS "workspaceId", owner_id AS "ownerId", name, widgets, queue_ids AS "queueIds", created_at AS "createdAt", updated_at AS "updatedAt"`,
);

export function dashboardsRepository(c: Sql): DashboardsRepository {
  return {
    async listVisible(workspaceId, readable) {
      // `<@`: every queue the dashboard names is among the readable ones (an empty list always is).
      return readable
        ? rowsOf<DashboardRecord>(c, Prisma.sql`
            SELECT ${COLUMNS} FROM dashboards WHERE workspace_id = ${workspaceId} AND queue_ids <@ ${readable}::int[] ORDER BY id`)
        : rowsOf<DashboardRecord>(c, Prisma.sql`
            SELECT ${COLUMNS} FROM dashboards WHERE workspace_id = ${workspaceId}
              AND queue_ids <@ ARRAY(SELECT id FROM queues WHERE workspace_id = ${workspaceId}) ORDER BY id`);
    },
    async find(workspaceId, id) {
      const rows = await rowsOf<DashboardRecord>(c, Prisma.sql`SELECT ${COLUMNS} FROM dashboards WHERE id = ${id} AND workspace_id = ${workspaceId}`);
      return rows[0] ?? null;
    },
    async create(d) {
      const rows = await rowsOf<DashboardRecord>(
        c,
        Prisma.sql`
          INSERT INTO dashboards (workspace_id, owner_id, name, widgets, queue_ids)
          VALUES (${d.workspaceId}, ${d.ownerId}, ${d.name}, ${JSON.stringify(d.widgets)}::jsonb, ${d.queueIds}::int[])
          RETURNING ${COLUMNS}`,
      );
      return rows[0]!;
    },
    async replace(id, changes, at) {
      const rows = await rowsOf<DashboardRecord>(
        c,
        Prisma.sql`
          UPDATE dashboards SET name = ${changes.name}, widgets = ${JSON.stringify(changes.widgets)}::jsonb, queue_ids = ${changes.queueIds}::int[],
                 updated_at = ${at}
           WHERE id = ${id}
          RETURNING ${COLUMNS}`,
      );
      return rows[0]!;
    },
  };
}
