import type { QueuesRepository } from '../domain/ports';
import type { QueueSettings } from '@tracker/contracts';
import type { QueueRecord, StatusRecord } from '../domain/model';
import { prepared, type Sql } from '@tracker/kit';

/** A queue (alias q) with its statuses in position order, as a QueueRecord row. */
const QUEUE_RECORD_COLUMNS = `
  q.id, q.workspace_id AS "workspaceId", q.key, q.name, q.description, q.revision,
  (SELECT coalesce(json_agg(json_build_object('id', s.id, 'queueId', s.queue_id, 'name', s.name, 'category', s.category, 'position', s.position)
                            ORDER BY s.position), '[]')
     FROM statuses s WHERE s.queue_id = q.id) AS statuses,
  q.created_at AS "createdAt", q.updated_at AS "updatedAt"`;

export function queuesRepository(c: Sql): QueuesRepository {
  return {
    /** Queues of the workspace, all of them or only those with the given ids. */
    async listInWorkspace(workspaceId: number, ids?: number[]): Promise<QueueRecord[]> {
      const { rows } = await c.query<QueueRecord>(
        `SELECT ${QUEUE_RECORD_COLUMNS} FROM queues q WHERE q.workspace_id = $1 AND ($2::int[] IS NULL OR q.id = ANY($2::int[])) ORDER BY q.id`,
        [workspaceId, ids ?? null],
      );
      return rows;
    },

    async findInWorkspace(workspaceId: number, id: number): Promise<QueueRecord | null> {
      const rows = await prepared<QueueRecord>(
        c,
        'queues.find-in-workspace',
        `SELECT ${QUEUE_RECORD_COLUMNS} FROM queues q WHERE q.workspace_id = $1 AND q.id = $2`,
        [workspaceId, id],
      );
      return rows[0] ?? null;
    },

    /** Ids among `ids` that are queues of the workspace. */
    async idsInWorkspace(workspaceId: number, ids: number[]): Promise<number[]> {
      if (ids.length === 0) return [];
      const rows = await prepared<{ id: number }>(
        c,
        'queues.ids-in-workspace',
        `SELECT id FROM queues WHERE workspace_id = $1 AND id = ANY($2::int[])`,
        [workspaceId, ids],
      );
      return rows.map((r) => r.id);
    },

    /** Statuses of the workspace's queues (all, or those with the given queue ids), in queue then position order. */
    async statuses(workspaceId: number, queueIds?: number[]): Promise<StatusRecord[]> {
      const { rows } = await c.query<StatusRecord>(
        `SELECT s.id, s.queue_id AS "queueId", s.name, s.category, s.position
           FROM statuses s JOIN queues q ON q.id = s.queue_id
          WHERE q.workspace_id = $1 AND ($2::int[] IS NULL OR s.queue_id = ANY($2::int[]))
          ORDER BY s.queue_id, s.position`,
        [workspaceId, queueIds ?? null],
      );
      return rows;
    },

    /**
     * Inserts a queue with its statuses; null when the key is taken in the workspace.
     * ON CONFLICT keeps the transaction usable, and a concurrent creation of the same
     * key waits for the other transaction and then sees the conflict.
     */
    async create(input: {
      workspaceId: number;
      key: string;
      name: string;
      description: string;
      statuses: ReadonlyArray<Pick<StatusRecord, 'name' | 'category' | 'position'>>;
    }): Promise<QueueRecord | null> {
      const inserted = await c.query<{ id: number }>(
        `INSERT INTO queues (workspace_id, key, name, description) VALUES ($1, $2, $3, $4)
         ON CONFLICT (workspace_id, key) DO NOTHING RETURNING id`,
        [input.workspaceId, input.key, input.name, input.description],
      );
      const id = inserted.rows[0]?.id;
      if (id === undefined) return null;
      await c.query(
        `INSERT INTO statuses (queue_id, name, category, position)
         SELECT $1::int, name, category::status_category, position FROM unnest($2::text[], $3::text[], $4::int[]) AS s(name, category, position)`,
        [id, input.statuses.map((s) => s.name), input.statuses.map((s) => s.category), input.statuses.map((s) => s.position)],
      );
      const { rows } = await c.query<QueueRecord>(`SELECT ${QUEUE_RECORD_COLUMNS} FROM queues q WHERE q.id = $1`, [id]);
      return rows[0]!;
    },

    /** The queue row locked until the transaction ends. */
    async lock(workspaceId: number, id: number): Promise<QueueRecord | null> {
      const { rows } = await c.query<QueueRecord>(
        `SELECT ${QUEUE_RECORD_COLUMNS} FROM queues q WHERE q.id = $1 AND q.workspace_id = $2 FOR NO KEY UPDATE OF q`,
        [id, workspaceId],
      );
      return rows[0] ?? null;
    },

    /** Every queue of every workspace, by id, for the replica snapshot. */
    async page(afterId: number, limit: number): Promise<QueueRecord[]> {
      const { rows } = await c.query<QueueRecord>(`SELECT ${QUEUE_RECORD_COLUMNS} FROM queues q WHERE q.id > $1 ORDER BY q.id LIMIT $2`, [afterId, limit]);
      return rows;
    },

    async update(id: number, changes: QueueSettings): Promise<QueueRecord> {
      const { rows } = await c.query<QueueRecord>(
        `WITH q AS (
           UPDATE queues SET name = coalesce($2, name), description = coalesce($3, description), revision = revision + 1, updated_at = now()
            WHERE id = $1 RETURNING *)
         SELECT ${QUEUE_RECORD_COLUMNS} FROM q`,
        [id, changes.name ?? null, changes.description ?? null],
      );
      return rows[0]!;
    },
  };
}

