import type { ReplicaStore, ReplicaWriter } from '../domain/ports';
import { prepared, rowCountOf, rowsOf, sql, type Sql } from '@tracker/kit';

/**
 * Replica writes as set-based upserts: rows travel as one JSON parameter and are
 * expanded by jsonb_to_recordset, so a snapshot page is one statement per table and
 * an event is the same statement with one row. The revision rule is the upsert's
 * `WHERE EXCLUDED.revision > <table>.revision`: the database decides under the row
 * lock, so there is no read-then-write race between concurrent consumers. Neither does a
 * row ever move to another workspace (workspace-rule.ts refuses such events first; the
 * condition closes the race of two concurrent first events of one row). Of the statements
 * a batch of events runs, those of every batch (the workspaces held, the issues, the
 * comments) are prepared; the queue upsert and its statuses (queue events are rare) go
 * unnamed through the kit's `sql` tag. These three and the read of the replica's status
 * (replica-reads.repository.ts) are the service's prepared statements.
 *
 * Besides the rows, the rebuild's marks on the replica (replica_state): `clear` (run by the
 * store in one bulk transaction), `isBuilt` and `markBuilt`.
 */
export function replicaWritesRepository(c: Sql): ReplicaWriter & ReplicaBuildMarks {
  return {
    async applyQueues(rows, eventAt) {
      if (rows.length === 0) return [];
      const queues = rows.map(({ revision, queue: q }) => ({
        id: q.id,
        workspace_id: q.workspace_id,
        key: q.key,
        name: q.name,
        description: q.description,
        revision,
        created_at: q.created_at,
        updated_at: q.updated_at,
      }));
      const applied = await rowsOf<{ id: number }>(c, sql`
        INSERT INTO queues (id, workspace_id, key, name, description, revision, event_at, created_at, updated_at)
        SELECT r.id, r.workspace_id, r.key, r.name, r.description, r.revision, ${eventAt}::timestamptz, r.created_at, r.updated_at
        FROM jsonb_to_recordset(${JSON.stringify(queues)}::jsonb) AS r(
          id int, workspace_id int, key text, name text, description text, revision int, created_at timestamptz, updated_at timestamptz)
        ON CONFLICT (id) DO UPDATE SET
          workspace_id = EXCLUDED.workspace_id, key = EXCLUDED.key, name = EXCLUDED.name, description = EXCLUDED.description,
          revision = EXCLUDED.revision, event_at = EXCLUDED.event_at, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at
        WHERE EXCLUDED.revision > queues.revision AND EXCLUDED.workspace_id = queues.workspace_id
        RETURNING id`);
      if (applied.length === 0) return [];
      // The statuses belong to the queue state that won; the queue row stays locked
      // until commit, so a concurrent newer state writes its statuses after these.
      const won = new Set(applied.map((r) => r.id));
      const statuses = rows
        .filter((r) => won.has(r.queue.id))
        .flatMap(({ queue }) => queue.statuses.map((s) => ({ id: s.id, queue_id: queue.id, name: s.name, category: s.category, position: s.position })));
      await rowCountOf(c, sql`
        DELETE FROM statuses WHERE queue_id = ANY(${[...won]}::int[]) AND NOT (id = ANY(${statuses.map((s) => s.id)}::int[]))`);
      if (statuses.length > 0) {
        await rowCountOf(c, sql`
          INSERT INTO statuses (id, queue_id, name, category, position)
          SELECT r.id, r.queue_id, r.name, r.category::status_category, r.position
          FROM jsonb_to_recordset(${JSON.stringify(statuses)}::jsonb) AS r(id int, queue_id int, name text, category text, position int)
          ON CONFLICT (id) DO UPDATE SET queue_id = EXCLUDED.queue_id, name = EXCLUDED.name, category = EXCLUDED.category, position = EXCLUDED.position`);
      }
      return [...won];
    },

    async applyIssues(rows, eventAt) {
      if (rows.length === 0) return [];
      // The event's issue state as it is (its fields are the replica's columns), with the revision it is at.
      const issues = rows.map(({ revision, issue }) => ({ ...issue, description: issue.description ?? null, revision }));
      // A state without `description` (it is optional in IssueState) keeps the stored text.
      const written = await prepared<{ id: number }>(
        c,
        'replica.apply-issues',
        `INSERT INTO issues (id, workspace_id, queue_id, key, title, description, status_id, status_category, assignee_id, parent_id,
                            priority, type, labels, due_date, estimate_minutes, spent_minutes, version, revision, event_at, created_at, updated_at)
        SELECT r.id, r.workspace_id, r.queue_id, r.key, r.title, r.description, r.status_id, r.status_category::status_category,
               r.assignee_id, r.parent_id, r.priority::issue_priority, r.type, r.labels, r.due_date, r.estimate_minutes, r.spent_minutes,
               r.version, r.revision, $2::timestamptz, r.created_at, r.updated_at
        FROM jsonb_to_recordset($1::jsonb) AS r(
          id int, workspace_id int, queue_id int, key text, title text, description text, status_id int, status_category text,
          assignee_id int, parent_id int, priority text, type text, labels text[], due_date date, estimate_minutes int,
          spent_minutes int, version int, revision int, created_at timestamptz, updated_at timestamptz)
        ON CONFLICT (id) DO UPDATE SET
          workspace_id = EXCLUDED.workspace_id, queue_id = EXCLUDED.queue_id, key = EXCLUDED.key, title = EXCLUDED.title,
          description = COALESCE(EXCLUDED.description, issues.description), status_id = EXCLUDED.status_id,
          status_category = EXCLUDED.status_category, assignee_id = EXCLUDED.assignee_id, parent_id = EXCLUDED.parent_id,
          priority = EXCLUDED.priority, type = EXCLUDED.type, labels = EXCLUDED.labels, due_date = EXCLUDED.due_date,
          estimate_minutes = EXCLUDED.estimate_minutes, spent_minutes = EXCLUDED.spent_minutes, version = EXCLUDED.version,
          revision = EXCLUDED.revision, event_at = EXCLUDED.event_at, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at
        WHERE EXCLUDED.revision > issues.revision AND EXCLUDED.workspace_id = issues.workspace_id
        RETURNING id`,
        [JSON.stringify(issues), eventAt],
      );
      return written.map((r) => r.id);
    },

    async addComments(rows, eventAt) {
      if (rows.length === 0) return [];
      const comments = rows.map((r) => ({ id: r.id, issue_id: r.issueId, body: r.body }));
      // A snapshot comment may belong to an issue created after the issue pages were read:
      // skipped (its comment.added event brings it), never a foreign-key failure.
      const written = await prepared<{ id: number }>(
        c,
        'replica.add-comments',
        `INSERT INTO comments (id, issue_id, body, event_at)
        SELECT r.id, r.issue_id, r.body, $2::timestamptz
        FROM jsonb_to_recordset($1::jsonb) AS r(id int, issue_id int, body text)
        WHERE EXISTS (SELECT 1 FROM issues i WHERE i.id = r.issue_id)
        ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body, event_at = EXCLUDED.event_at
        WHERE comments.body IS NULL AND EXCLUDED.body IS NOT NULL
        RETURNING id`,
        [JSON.stringify(comments), eventAt],
      );
      return written.map((r) => r.id);
    },

    async heldWorkspaces(refs) {
      const rows = await prepared<{ kind: 'queue' | 'issue' | 'comment'; id: number; value: number }>(
        c,
        'replica.held-workspaces',
        `SELECT 'queue' AS kind, id, workspace_id AS value FROM queues WHERE id = ANY($1::int[])
         UNION ALL SELECT 'issue', id, workspace_id FROM issues WHERE id = ANY($2::int[])
         UNION ALL SELECT 'comment', id, issue_id FROM comments WHERE id = ANY($3::int[])`,
        [refs.queueIds, refs.issueIds, refs.commentIds],
      );
      const of = (kind: string) => new Map(rows.filter((r) => r.kind === kind).map((r) => [r.id, r.value]));
      return { queues: of('queue'), issues: of('issue'), comments: of('comment') };
    },

    async clear() {
      await c.query('UPDATE replica_state SET built = false, snapshot_at = NULL, built_at = NULL WHERE id = 1');
      await c.query('TRUNCATE comments, issues, statuses, queues');
    },

    async isBuilt() {
      const rows = await rowsOf<{ built: boolean }>(c, sql`SELECT built FROM replica_state WHERE id = 1`);
      return rows[0]?.built ?? false;
    },

    async markBuilt(snapshotAt) {
      await rowCountOf(c, sql`
        INSERT INTO replica_state (id, built, snapshot_at, built_at) VALUES (1, true, ${snapshotAt}, now())
        ON CONFLICT (id) DO UPDATE SET built = true, snapshot_at = EXCLUDED.snapshot_at, built_at = EXCLUDED.built_at`);
    },
  };
}

/** The rebuild's marks on the replica: the ReplicaStore port's reset (with `clear`), isBuilt and markBuilt. */
export type ReplicaBuildMarks = Pick<ReplicaStore, 'isBuilt' | 'markBuilt'> & {
  /** Marks the replica not built and deletes every replicated row (dashboards stay). */
  clear(): Promise<void>;
};
