import type { QueueSettings } from '@tracker/contracts';
import type { QueueRecord, StatusRecord } from '../domain/model';
import type { Client } from './prisma';
import { queueInclude, toQueueRecord, toStatusRecord } from './records';

export function queuesRepository(c: Client) {
  return {
    /** Queues of the workspace, all of them or only those with the given ids. */
    async listInWorkspace(workspaceId: number, ids?: number[]): Promise<QueueRecord[]> {
      const rows = await c.queue.findMany({
        where: { workspaceId, ...(ids ? { id: { in: ids } } : {}) },
        include: queueInclude,
        orderBy: { id: 'asc' },
      });
      return rows.map(toQueueRecord);
    },

    async findInWorkspace(workspaceId: number, id: number): Promise<QueueRecord | null> {
      const row = await c.queue.findFirst({ where: { id, workspaceId }, include: queueInclude });
      return row ? toQueueRecord(row) : null;
    },

    /** Ids among `ids` that are queues of the workspace. */
    async idsInWorkspace(workspaceId: number, ids: number[]): Promise<number[]> {
      if (ids.length === 0) return [];
      const rows = await c.queue.findMany({ where: { workspaceId, id: { in: ids } }, select: { id: true } });
      return rows.map((r) => r.id);
    },

    /** Statuses of the workspace's queues (all, or those with the given queue ids), in queue then position order. */
    async statuses(workspaceId: number, queueIds?: number[]): Promise<StatusRecord[]> {
      const rows = await c.status.findMany({
        where: { queue: { workspaceId }, ...(queueIds ? { queueId: { in: queueIds } } : {}) },
        orderBy: [{ queueId: 'asc' }, { position: 'asc' }],
      });
      return rows.map(toStatusRecord);
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
      const inserted = await c.$queryRaw<Array<{ id: number }>>`
        INSERT INTO queues (workspace_id, key, name, description)
        VALUES (${input.workspaceId}, ${input.key}, ${input.name}, ${input.description})
        ON CONFLICT (workspace_id, key) DO NOTHING
        RETURNING id`;
      const id = inserted[0]?.id;
      if (id === undefined) return null;
      await c.status.createMany({ data: input.statuses.map((s) => ({ queueId: id, name: s.name, category: s.category, position: s.position })) });
      const row = await c.queue.findUniqueOrThrow({ where: { id }, include: queueInclude });
      return toQueueRecord(row);
    },

    /** The queue row locked until the transaction ends. */
    async lock(workspaceId: number, id: number): Promise<QueueRecord | null> {
      const locked = await c.$queryRaw<Array<{ id: number }>>`SELECT id FROM queues WHERE id = ${id} AND workspace_id = ${workspaceId} FOR NO KEY UPDATE`;
      if (locked.length === 0) return null;
      return toQueueRecord(await c.queue.findUniqueOrThrow({ where: { id }, include: queueInclude }));
    },

    /** Every queue of every workspace, by id, for the replica snapshot. */
    async page(afterId: number, limit: number): Promise<QueueRecord[]> {
      const rows = await c.queue.findMany({ where: { id: { gt: afterId } }, orderBy: { id: 'asc' }, take: limit, include: queueInclude });
      return rows.map(toQueueRecord);
    },

    async update(id: number, changes: QueueSettings): Promise<QueueRecord> {
      const row = await c.queue.update({
        where: { id },
        data: { ...changes, revision: { increment: 1 }, updatedAt: new Date() },
        include: queueInclude,
      });
      return toQueueRecord(row);
    },
  };
}

export type QueuesRepository = ReturnType<typeof queuesRepository>;
