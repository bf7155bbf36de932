import { Client } from 'pg';
import type { System } from './system';

/**
 * What the statistics replica holds, and the same read from the issues service's own
 * tables, in the same shape: queues, statuses, issues (every replicated field, with the
 * revision) and comments, each ordered by id. Equal means nothing lost (every row and
 * its newest revision arrived) and nothing doubled (no extra row, no worklog minutes or
 * comment counted twice).
 */
export interface ReplicaView {
  queues: Record<string, unknown>[];
  statuses: Record<string, unknown>[];
  issues: Record<string, unknown>[];
  comments: Record<string, unknown>[];
}

const QUEUES = `SELECT id, workspace_id, key, name, description, revision, created_at, updated_at FROM %s.queues ORDER BY id`;
const STATUSES = `SELECT id, queue_id, name, category::text AS category, position FROM %s.statuses ORDER BY id`;
const ISSUE_COMPARED_COLUMNS = `i.id, i.workspace_id, i.queue_id, i.key, i.title, i.description, i.status_id, i.assignee_id, i.parent_id,
  i.priority::text AS priority, i.type, i.labels, i.due_date::text AS due_date, i.estimate_minutes, i.spent_minutes,
  i.version, i.revision, i.created_at, i.updated_at`;
const COMMENTS = `SELECT id, issue_id, body FROM %s.comments ORDER BY id`;

export async function replicaView(system: System): Promise<{ source: ReplicaView; replica: ReplicaView }> {
  const src = `"${system.issuesSchema.schema}"`;
  const rep = `"${system.statisticsSchema.schema}"`;
  // A session of its own: each side is read in one REPEATABLE READ transaction (one moment's state).
  const client = new Client({ connectionString: system.issuesSchema.databaseUrl });
  await client.connect();
  const read = async (schema: string, issuesSql: string): Promise<ReplicaView> => {
    const q = async (sql: string) => (await client.query(sql)).rows as Record<string, unknown>[];
    await q('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const queues = await q(QUEUES.replace('%s', schema));
      const statuses = await q(STATUSES.replace('%s', schema));
      const issues = await q(issuesSql);
      const comments = await q(COMMENTS.replace('%s', schema));
      return { queues, statuses, issues, comments };
    } finally {
      await q('COMMIT');
    }
  };
  try {
    // The source has no status category column on issues: it is the status's.
    const source = await read(src, `SELECT ${ISSUE_COMPARED_COLUMNS}, s.category::text AS status_category FROM ${src}.issues i JOIN ${src}.statuses s ON s.id = i.status_id ORDER BY i.id`);
    const replica = await read(rep, `SELECT ${ISSUE_COMPARED_COLUMNS}, i.status_category::text AS status_category FROM ${rep}.issues i ORDER BY i.id`);
    return { source, replica };
  } finally {
    await client.end();
  }
}

/**
 * Waits until the replica equals the source row by row (polling), and returns both
 * sides as last read, so the caller asserts `expect(replica).toEqual(source)` and gets
 * a readable diff when they never met.
 */
export async function waitForReplica(system: System, timeoutMs = 30_000): Promise<{ source: ReplicaView; replica: ReplicaView }> {
  const deadline = Date.now() + timeoutMs;
  let view = await replicaView(system);
  while (JSON.stringify(view.replica) !== JSON.stringify(view.source) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    view = await replicaView(system);
  }
  return view;
}
