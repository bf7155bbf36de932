import type { DashboardsRepository } from '../domain/ports';
import type { DashboardRecord } from '../domain/model';
import { raw, rowsOf, sql, type Sql } from '@tracker/kit';

/** A dashboard row as a DashboardRecord. */
const COLUMNS = raw(
  `id, workspace_id AS "workspaceId", owner_id AS "ownerId", name, widgets, queue_ids AS "queueIds", created_at AS "createdAt", updated_at AS "updatedAt"`,
);

export function dashboardsRepository(db: Sql): DashboardsRepository {
  return {
    async listVisible(workspaceId, readable) {
      // `<@`: every queue the dashboard names is among the readable ones (an empty list always is).
      return readable
        ? rowsOf<DashboardRecord>(db, sql`
            SELECT ${COLUMNS} FROM dashboards WHERE workspace_id = ${workspaceId} AND queue_ids <@ ${readable}::int[] ORDER BY id`)
        : rowsOf<DashboardRecord>(db, sql`SELECT ${COLUMNS} FROM dashboards WHERE workspace_id = ${workspaceId} ORDER BY id`);
    },
    async find(workspaceId, id) {
      const rows = await rowsOf<DashboardRecord>(db, sql`SELECT ${COLUMNS} FROM dashboards WHERE id = ${id} AND workspace_id = ${workspaceId}`);
      return rows[0] ?? null;
    },
    async lockWorkspace(workspaceId) {
      // A transaction-scoped advisory lock, keyed per schema and workspace.
      await db.query(`SELECT pg_advisory_xact_lock(hashtext('statistics.dashboards:' || current_schema()), $1)`, [workspaceId]);
    },
    async countInWorkspace(workspaceId) {
      const [held] = await rowsOf<{ count: number }>(db, sql`SELECT count(*)::int AS count FROM dashboards WHERE workspace_id = ${workspaceId}`);
      return held!.count;
    },
    async insert(d) {
      const rows = await rowsOf<DashboardRecord>(
        db,
        sql`
          INSERT INTO dashboards (workspace_id, owner_id, name, widgets, queue_ids)
          VALUES (${d.workspaceId}, ${d.ownerId}, ${d.name}, ${JSON.stringify(d.widgets)}::jsonb, ${d.queueIds}::int[])
          RETURNING ${COLUMNS}`,
      );
      return rows[0]!;
    },
    async replace(id, changes, at) {
      const rows = await rowsOf<DashboardRecord>(
        db,
        sql`
          UPDATE dashboards SET name = ${changes.name}, widgets = ${JSON.stringify(changes.widgets)}::jsonb, queue_ids = ${changes.queueIds}::int[],
                 updated_at = ${at}
           WHERE id = ${id}
          RETURNING ${COLUMNS}`,
      );
      return rows[0]!;
    },
  };
}
