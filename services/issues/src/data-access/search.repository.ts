import { join, raw, sqltag as sql, type Sql as SqlFragment } from '@prisma/client/runtime/client';
import type { SearchCriteria } from '@tracker/contracts';
import type { Sql } from '@tracker/kit';
import type { IssueRecord } from '../domain/model';
import { ISSUE_RECORD_COLUMNS } from './issue-reads.repository';

/**
 * The search as one SQL statement returning whole issue records (exported so a test and
 * the benchmark can EXPLAIN it). Free text goes through the GIN indexes on
 * issues.search_vector and comments.search_vector: the matching ids of both are united
 * first, then the other conditions apply. Built with Prisma's sql tag for its safe parameters;
 * run on node-postgres (`.text` has the $n placeholders).
 */
export function searchSql(criteria: SearchCriteria): SqlFragment {
  const where: SqlFragment[] = [sql`i.workspace_id = ${criteria.workspaceId}`];
  if (criteria.queueIds) where.push(sql`i.queue_id = ANY(${criteria.queueIds}::int[])`);
  if (criteria.statusIds) where.push(sql`i.status_id = ANY(${criteria.statusIds}::int[])`);
  if (criteria.assigneeIds) where.push(sql`i.assignee_id = ANY(${criteria.assigneeIds}::int[])`);
  if (criteria.assigneeId !== undefined) where.push(sql`i.assignee_id = ${criteria.assigneeId}`);
  if (criteria.priority) where.push(sql`i.priority::text = ${criteria.priority}`);
  if (criteria.category) where.push(sql`s.category::text = ${criteria.category}`);
  if (criteria.dueBefore) where.push(sql`i.due_date < ${criteria.dueBefore}::date AND s.category <> 'done'`);
  if (criteria.label) where.push(sql`${criteria.label} = ANY(i.labels)`);
  if (criteria.text) {
    where.push(sql`i.id IN (
      SELECT id FROM issues WHERE search_vector @@ websearch_to_tsquery('simple', ${criteria.text})
      UNION
      SELECT issue_id FROM comments WHERE search_vector @@ websearch_to_tsquery('simple', ${criteria.text}))`);
  }
  return sql`
    SELECT ${raw(ISSUE_RECORD_COLUMNS)} FROM issues i JOIN statuses s ON s.id = i.status_id
    WHERE ${join(where, ' AND ')}
    ORDER BY i.updated_at DESC, i.id DESC
    LIMIT ${criteria.limit}`;
}

export function searchRepository(db: Sql) {
  return {
    async search(criteria: SearchCriteria): Promise<IssueRecord[]> {
      if (criteria.queueIds?.length === 0) return [];
      const query = searchSql(criteria);
      return (await db.query<IssueRecord>(query.text, query.values)).rows;
    },
  };
}

export type SearchRepository = ReturnType<typeof searchRepository>;
