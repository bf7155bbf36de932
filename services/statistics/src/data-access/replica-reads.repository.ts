import type { ReplicaReader } from '../domain/ports';
import type { StatisticsFigures } from '../domain/model';
import { selectsNothing, type SearchCriteria } from '@tracker/contracts';
import { join, prepared, rowsOf, sql, type Sql, type SqlQuery } from '@tracker/kit';
import { searchConditions, searchTextQuery } from '@tracker/search-sql';

/**
 * The matching issues (alias i) the statistics count from. With free text, as in the
 * issues service's search: the text matches of issues and of comments are two branches,
 * each filtered by the workspace and every other condition, so neither carries matches
 * of other workspaces (or of queues the caller cannot read) into the union, the sort or
 * the count: the work grows with the caller's own matches, not with every tenant's. (An
 * `i.id IN (SELECT … WHERE search_vector @@ …)` over the whole table, as before, hashed
 * every tenant's matching ids on every call.)
 */
function matching(criteria: SearchCriteria): SqlQuery {
  // The replica keeps each issue's status category on the issue itself.
  const where = join(searchConditions(criteria, 'i.status_category'), ' AND ');
  if (!criteria.text) return sql`SELECT i.* FROM issues i WHERE ${where}`;
  const query = searchTextQuery(criteria.text);
  return sql`
    SELECT i.* FROM issues i WHERE i.id IN (
      SELECT i.id FROM issues i WHERE ${where} AND i.search_vector @@ ${query}
      UNION
      SELECT i.id FROM comments c JOIN issues i ON i.id = c.issue_id WHERE ${where} AND c.search_vector @@ ${query})`;
}

/**
 * Statistics as one statement (exported so a test can EXPLAIN it): `used` holds the
 * at most `limit` most recently updated matching issues, each carrying the count of
 * all matches (a window over the set before the LIMIT); one GROUPING SETS pass then
 * yields the overall row, one row per queue and one per assignee (null: unassigned).
 * Sums are float8 so they reach JavaScript as numbers (exact far beyond any total).
 */
export function statisticsSql(criteria: SearchCriteria): SqlQuery {
  return sql`
    WITH used AS (
      SELECT i.id, i.key, i.queue_id, i.assignee_id, i.status_category, i.estimate_minutes, i.spent_minutes,
             count(*) OVER () AS matched
      FROM (${matching(criteria)}) i
      ORDER BY i.updated_at DESC, i.id DESC
      LIMIT ${criteria.limit}
    ),
    figures AS (
      SELECT
        CASE WHEN GROUPING(u.queue_id) = 0 THEN 'queue' WHEN GROUPING(u.assignee_id) = 0 THEN 'assignee' ELSE 'all' END AS dim,
        u.queue_id,
        u.assignee_id,
        -- Per queue: its key, taken from an issue key while the queue's own event has not arrived.
        CASE WHEN GROUPING(u.queue_id) = 0 THEN COALESCE(min(q.key), min(regexp_replace(u.key, '-[0-9]+$', ''))) END AS queue_key,
        count(*) FILTER (WHERE u.status_category = 'open')::int AS open,
        count(*) FILTER (WHERE u.status_category = 'progress')::int AS progress,
        count(*) FILTER (WHERE u.status_category = 'done')::int AS done,
        count(*)::int AS total,
        COALESCE(sum(u.estimate_minutes), 0)::float8 AS estimate_minutes,
        COALESCE(sum(u.spent_minutes), 0)::float8 AS spent_minutes,
        COALESCE(round(100.0 * count(*) FILTER (WHERE u.status_category = 'done') / NULLIF(count(*), 0), 1), 0)::float8 AS done_percent,
        COALESCE(max(u.matched), 0)::float8 AS matched
      FROM used u
      LEFT JOIN queues q ON q.id = u.queue_id
      GROUP BY GROUPING SETS ((), (u.queue_id), (u.assignee_id))
    )
    SELECT * FROM figures ORDER BY dim, queue_key COLLATE "C", queue_id, assignee_id NULLS FIRST`;
}

interface FigureRow {
  dim: 'all' | 'queue' | 'assignee';
  queue_id: number | null;
  assignee_id: number | null;
  queue_key: string | null;
  open: number;
  progress: number;
  done: number;
  total: number;
  estimate_minutes: number;
  spent_minutes: number;
  done_percent: number;
  matched: number;
}

const EMPTY: StatisticsFigures = {
  matched: 0,
  overall: { open: 0, progress: 0, done: 0, total: 0, estimateMinutes: 0, spentMinutes: 0, donePercent: 0 },
  queues: [],
  assignees: [],
};

const counts = (r: FigureRow) => ({
  open: r.open,
  progress: r.progress,
  done: r.done,
  total: r.total,
  estimateMinutes: r.estimate_minutes,
  spentMinutes: r.spent_minutes,
});

const REPLICA_STATUS = `
  SELECT s.built, GREATEST(s.snapshot_at,
    (SELECT max(event_at) FROM issues), (SELECT max(event_at) FROM queues), (SELECT max(event_at) FROM comments)) AS as_of
  FROM replica_state s WHERE s.id = 1`;

/** The replica's reads: its status, which queues it holds, and the statistics' figures. */
export function replicaReadsRepository(c: Sql): ReplicaReader {
  return {
    async status() {
      // as_of: the newest applied event (each replicated row keeps its event's occurred_at;
      // the max of indexed columns, so no single row is written by every event), and at
      // least the start of the last rebuild.
      const rows = await prepared<{ built: boolean; as_of: Date | null }>(c, 'replica.status', REPLICA_STATUS, []);
      return { built: rows[0]?.built ?? false, asOf: rows[0]?.as_of ?? null };
    },

    async queueIdsInWorkspace(workspaceId, ids) {
      const rows = await rowsOf<{ id: number }>(c, sql`SELECT id FROM queues WHERE workspace_id = ${workspaceId} AND id = ANY(${ids}::int[])`);
      return rows.map((r) => r.id);
    },

    async figures(criteria) {
      // An empty id list (or no readable queue) admits no issue: no query.
      if (selectsNothing(criteria)) return EMPTY;
      const rows = await rowsOf<FigureRow>(c, statisticsSql(criteria));
      const overall = rows.find((r) => r.dim === 'all');
      if (!overall || overall.total === 0) return EMPTY;
      return {
        matched: overall.matched,
        overall: { ...counts(overall), donePercent: overall.done_percent },
        queues: rows
          .filter((r) => r.dim === 'queue')
          .map((r) => ({ queueId: r.queue_id!, key: r.queue_key ?? '', ...counts(r) })),
        assignees: rows
          .filter((r) => r.dim === 'assignee')
          .map((r) => ({ assigneeId: r.assignee_id, ...counts(r) })),
      };
    },
  };
}
