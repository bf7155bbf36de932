import { prepared, type Sql } from '@tracker/kit';
import type { QueuesRepository } from '../domain/ports';
import type { QueueRef } from '../domain/permissions.model';

const QUEUE_COLUMNS = `id, workspace_id AS "workspaceId", key`;

export function queuesRepository(c: Sql): QueuesRepository {
  return {
    async find(queueId) {
      const rows = await prepared<QueueRef>(c, 'queues.find', `SELECT ${QUEUE_COLUMNS} FROM queues WHERE id = $1`, [queueId]);
      return rows[0] ?? null;
    },

    async findInWorkspace(workspaceId, queueId) {
      const rows = await prepared<QueueRef>(
        c,
        'queues.find-in-workspace',
        `SELECT ${QUEUE_COLUMNS} FROM queues WHERE id = $1 AND workspace_id = $2`,
        [queueId, workspaceId],
      );
      return rows[0] ?? null;
    },

    async register(queue) {
      // Idempotent: a queue already registered under this id is left as it is.
      await prepared(
        c,
        'queues.register',
        `INSERT INTO queues (id, workspace_id, key) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [queue.id, queue.workspaceId, queue.key],
      );
    },

    async idsInWorkspace(workspaceId, queueIds) {
      const rows = await prepared<{ id: number }>(
        c,
        'queues.ids-in-workspace',
        `SELECT id FROM queues WHERE workspace_id = $1 AND id = ANY($2::int[]) ORDER BY id`,
        [workspaceId, queueIds],
      );
      return rows.map((r) => r.id);
    },
  };
}
