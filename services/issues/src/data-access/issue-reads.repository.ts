import { prepared, type Sql } from '@tracker/kit';
import type { CommentRecord, HistoryRecord, IssueRecord, IssueRef, LinkRecord, WorklogRecord } from '../domain/model';

/**
 * The issue read, the hottest path of the service (every read, and the first step of
 * every write), as prepared statements. Rows are shaped in SQL so they need no mapping.
 */

/** An issue (alias i) and its status (alias s) as an IssueRef. */
const ISSUE_REF_JSON =
  `json_build_object('id', i.id, 'key', i.key, 'queueId', i.queue_id, 'title', i.title, ` +
  `'status', json_build_object('id', s.id, 'name', s.name, 'category', s.category), 'assigneeId', i.assignee_id, 'priority', i.priority)`;

/**
 * An issue (alias i) as an IssueRecord row: no mapping needed. Its status comes from a
 * subquery, not a join: a row locked with FOR NO KEY UPDATE after a concurrent update is
 * re-checked against a joined status row of the old status_id and silently dropped,
 * whereas the subquery is evaluated for the row as locked.
 */
export const ISSUE_RECORD_COLUMNS = `
  i.id, i.workspace_id AS "workspaceId", i.queue_id AS "queueId", i.key, i.title, i.description, i.status_id,
  (SELECT json_build_object('id', st.id, 'name', st.name, 'category', st.category) FROM statuses st WHERE st.id = i.status_id) AS status,
  i.position, i.assignee_id, i.parent_id, i.priority, i.type, i.labels,
  to_char(i.due_date, 'YYYY-MM-DD') AS due_date, i.estimate_minutes, i.spent_minutes AS "spentMinutes",
  i.version, i.revision, i.created_by AS "createdBy", i.created_at AS "createdAt", i.updated_at AS "updatedAt"`;

const FIND_BY_KEY = `
  SELECT ${ISSUE_RECORD_COLUMNS} FROM issues i WHERE i.workspace_id = $1 AND i.key = $2`;

// Timestamps inside json come out as ISO text; the mapper below turns them into Dates.
const ATTACHMENTS = `
  SELECT
    (SELECT coalesce(json_agg(json_build_object('id', x.id, 'issueId', x.issue_id, 'authorId', x.author_id, 'body', x.body, 'createdAt', x.created_at) ORDER BY x.id), '[]')
       FROM comments x WHERE x.issue_id = $1) AS comments,
    (SELECT coalesce(json_agg(json_build_object('id', x.id, 'issueId', x.issue_id, 'authorId', x.author_id, 'minutes', x.minutes, 'description', x.description, 'createdAt', x.created_at) ORDER BY x.id), '[]')
       FROM worklogs x WHERE x.issue_id = $1) AS worklogs,
    (SELECT coalesce(json_agg(json_build_object('field', x.field, 'from', x."from", 'to', x."to", 'actorId', x.actor_id, 'at', x.at) ORDER BY x.id), '[]')
       FROM issue_history x WHERE x.issue_id = $1) AS history,
    (SELECT coalesce(json_agg(json_build_object('type', x.type, 'direction', x.direction, 'createdAt', x.created_at, 'issue', ${ISSUE_REF_JSON}) ORDER BY x.id), '[]')
       FROM issue_links x JOIN issues i ON i.id = x.target_id JOIN statuses s ON s.id = i.status_id WHERE x.source_id = $1) AS links,
    (SELECT coalesce(json_agg(${ISSUE_REF_JSON} ORDER BY i.id), '[]')
       FROM issues i JOIN statuses s ON s.id = i.status_id WHERE i.parent_id = $1) AS subtasks`;

type Dated<T, K extends keyof T> = Omit<T, K> & { [P in K]: string };
const at = (iso: string) => new Date(iso);

export function issueReadsRepository(sql: Sql) {
  return {
    async findByKey(workspaceId: number, key: string): Promise<IssueRecord | null> {
      return (await prepared<IssueRecord>(sql, 'issues.find-by-key', FIND_BY_KEY, [workspaceId, key]))[0] ?? null;
    },

    /** Comments, worklogs, history, links and subtasks of an issue, oldest first, in one round trip. */
    async attachments(id: number) {
      const [row] = await prepared<{
        comments: Array<Dated<CommentRecord, 'createdAt'>>;
        worklogs: Array<Dated<WorklogRecord, 'createdAt'>>;
        history: Array<Dated<HistoryRecord, 'at'>>;
        links: Array<Dated<LinkRecord, 'createdAt'>>;
        subtasks: IssueRef[];
      }>(sql, 'issues.attachments', ATTACHMENTS, [id]);
      return {
        comments: row!.comments.map((x): CommentRecord => ({ ...x, createdAt: at(x.createdAt) })),
        worklogs: row!.worklogs.map((x): WorklogRecord => ({ ...x, createdAt: at(x.createdAt) })),
        history: row!.history.map((x): HistoryRecord => ({ ...x, at: at(x.at) })),
        links: row!.links.map((x): LinkRecord => ({ ...x, createdAt: at(x.createdAt) })),
        subtasks: row!.subtasks,
      };
    },
  };
}
