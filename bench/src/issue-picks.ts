/** The issues a scenario reads or writes, picked from the seeded workspace. */
import { SCHEMAS } from './seed';
import type { BenchSystem } from './system';

/**
 * Creations (API and pgbench alike) go to the last 20 queues only, so the queues B4 and
 * B5 read keep their seeded size however often the suite runs.
 */
export const WRITE_QUEUES = 20;

/** Issue keys spread over the workspace, with their current versions. */
export async function someIssues(system: BenchSystem, count: number, offset = 0): Promise<Array<{ id: number; key: string; version: number }>> {
  const rows = await system.db.query(
    `SELECT id, key, version FROM "${SCHEMAS.issues}".issues WHERE workspace_id = $1 AND id % 97 = $3 ORDER BY id LIMIT $2`,
    [system.seeded.workspaceId, count, offset % 97],
  );
  return rows.rows;
}

/** Keys of random issues in the queues B3 writes to (the last WRITE_QUEUES), a new pick per call. */
export async function writeQueueIssueKeys(system: BenchSystem, count: number): Promise<string[]> {
  const rows = await system.db.query(
    `SELECT key FROM "${SCHEMAS.issues}".issues WHERE workspace_id = $1 AND queue_id = ANY($2::int[]) ORDER BY random() LIMIT $3`,
    [system.seeded.workspaceId, system.queueIds.slice(-WRITE_QUEUES), count],
  );
  return rows.rows.map((r) => r.key);
}
