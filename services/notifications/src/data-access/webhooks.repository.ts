import type { Pool } from 'pg';
import { inTransaction, join, prepared, raw, rowsOf, sql, type SqlQuery } from '@tracker/kit';
import type { WebhooksRepository } from '../domain/ports';
import type { WebhookRecord } from '../domain/model';

/** The columns of a WebhookRecord (never the sealed secret: only the delivery worker reads it, through the deliveries repository). */
const RECORD = `id, workspace_id AS "workspaceId", url, events, queue_ids AS "queueIds", description, active,
  disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt"`;

type Row = Omit<WebhookRecord, 'queueIds'> & { queueIds: number[] };
/** An empty `queue_ids` column means every queue: null in the domain. */
const recordOf = (row: Row): WebhookRecord => ({ ...row, queueIds: row.queueIds.length > 0 ? row.queueIds : null });

/** Serialises the creations of one workspace, so its count is checked against the limit by one creation at a time. */
const WEBHOOK_LOCK = 0x77686b73; // "whks"

/** The webhooks' SQL (the `webhooks` table of this service's schema); every statement names the workspace. */
export function webhooksRepository(pool: Pool): WebhooksRepository {
  return {
    async create({ workspaceId, createdBy, fields, secretSealed, max }) {
      return inTransaction(pool, async (c) => {
        await prepared(c, 'webhooks.lock-workspace', `SELECT pg_advisory_xact_lock(${WEBHOOK_LOCK}, $1)`, [workspaceId]);
        const rows = await prepared<Row>(
          c,
          'webhooks.create',
          `INSERT INTO webhooks (workspace_id, url, events, queue_ids, description, secret_sealed, created_by, created_at, updated_at)
           SELECT $1, $2, $3, $4, $5, $6, $7, clock_timestamp(), clock_timestamp()
            WHERE (SELECT count(*) FROM webhooks WHERE workspace_id = $1) < $8
           RETURNING ${RECORD}`,
          [workspaceId, fields.url, fields.events, fields.queueIds ?? [], fields.description, secretSealed, createdBy, max],
        );
        return rows[0] ? recordOf(rows[0]) : null;
      });
    },

    async list(workspaceId) {
      const rows = await prepared<Row>(pool, 'webhooks.list', `SELECT ${RECORD} FROM webhooks WHERE workspace_id = $1 ORDER BY id`, [workspaceId]);
      return rows.map(recordOf);
    },

    async get(workspaceId, id) {
      const rows = await prepared<Row>(pool, 'webhooks.get', `SELECT ${RECORD} FROM webhooks WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
      return rows[0] ? recordOf(rows[0]) : null;
    },

    async update(workspaceId, id, changes) {
      const assignments = [
        changes.url !== undefined && sql`url = ${changes.url}`,
        changes.events !== undefined && sql`events = ${changes.events}`,
        changes.queueIds !== undefined && sql`queue_ids = ${changes.queueIds ?? []}::int[]`,
        changes.description !== undefined && sql`description = ${changes.description}`,
        changes.active !== undefined && sql`active = ${changes.active}`,
        changes.disabledReason !== undefined && sql`disabled_reason = ${changes.disabledReason}`,
        sql`updated_at = clock_timestamp()`,
      ].filter((a): a is SqlQuery => a !== false);
      const rows = await rowsOf<Row>(pool, sql`UPDATE webhooks SET ${join(assignments, ', ')} WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING ${raw(RECORD)}`);
      return rows[0] ? recordOf(rows[0]) : null;
    },

    async delete(workspaceId, id) {
      const rows = await prepared(pool, 'webhooks.delete', 'DELETE FROM webhooks WHERE workspace_id = $1 AND id = $2 RETURNING id', [workspaceId, id]);
      return rows.length > 0;
    },
  };
}
