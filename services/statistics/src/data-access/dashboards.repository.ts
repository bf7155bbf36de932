import type { Pool } from 'pg';
import type { DashboardsRepository } from '../domain/deps';
import type { DashboardRecord } from '../domain/model';
import { inTransaction, raw, rowsOf, runOnce, sql } from '@tracker/kit';

/** A dashboard row as a DashboardRecord. */
const COLUMNS = raw(
  `id, workspace_id AS "workspaceId", owner_id AS "ownerId", name, widgets, queue_ids AS "queueIds", created_at AS "createdAt", updated_at AS "updatedAt"`,
);

/** Rolls a create back (the key's claim with it) when the workspace holds its maximum. */
class WorkspaceFull extends Error {}

export function dashboardsRepository(pool: Pool): DashboardsRepository {
  return {
    async listVisible(workspaceId, readable) {
      // `<@`: every queue the dashboard names is among the readable ones (an empty list always is).
      return readable
        ? rowsOf<DashboardRecord>(pool, sql`
            SELECT ${COLUMNS} FROM dashboards WHERE workspace_id = ${workspaceId} AND queue_ids <@ ${readable}::int[] ORDER BY id`)
        : rowsOf<DashboardRecord>(pool, sql`SELECT ${COLUMNS} FROM dashboards WHERE workspace_id = ${workspaceId} ORDER BY id`);
    },
    async find(workspaceId, id) {
      const rows = await rowsOf<DashboardRecord>(pool, sql`SELECT ${COLUMNS} FROM dashboards WHERE id = ${id} AND workspace_id = ${workspaceId}`);
      return rows[0] ?? null;
    },
    async create(d, max, once) {
      try {
        return await inTransaction(pool, (client) =>
          // The Idempotency-Key is claimed first, so a concurrent repeat replays rather than counting.
          runOnce(client, once, async () => {
            // Creates of one workspace wait here for each other (until commit), so the count
            // below sees every dashboard committed before; the key is per schema and workspace.
            await client.query(`SELECT pg_advisory_xact_lock(hashtext('statistics.dashboards:' || current_schema()), $1)`, [d.workspaceId]);
            const [held] = await rowsOf<{ count: number }>(client, sql`SELECT count(*)::int AS count FROM dashboards WHERE workspace_id = ${d.workspaceId}`);
            if (held!.count >= max) throw new WorkspaceFull();
            const rows = await rowsOf<DashboardRecord>(
              client,
              sql`
                INSERT INTO dashboards (workspace_id, owner_id, name, widgets, queue_ids)
                VALUES (${d.workspaceId}, ${d.ownerId}, ${d.name}, ${JSON.stringify(d.widgets)}::jsonb, ${d.queueIds}::int[])
                RETURNING ${COLUMNS}`,
            );
            return rows[0]!;
          }),
        );
      } catch (error) {
        if (error instanceof WorkspaceFull) return null;
        throw error;
      }
    },
    async replace(id, changes, at) {
      const rows = await rowsOf<DashboardRecord>(
        pool,
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
