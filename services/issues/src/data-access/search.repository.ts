import type { Pool } from 'pg';
import type { SearchCriteria } from '@tracker/contracts';
import { Prisma } from '../generated/prisma/client';
import type { IssueRecord } from '../domain/model';
import { ISSUE_RECORD_COLUMNS } from './issue-reads.repository';

/**
 * The search as one SQL statement returning whole issue records (exported so a test and
 * the benchmark can EXPLAIN it). Free text goes through the GIN indexes on
 * issues.search_vector and comments.search_vector: the matching ids of both are united
 * first, then the other conditions apply. Built with Prisma.sql for its safe parameters;
 * run on node-postgres (`.text` has the $n placeholders) like the issue read.
 */
export function searchSql(criteria: SearchCriteria): Prisma.Sql {
  const where: Prisma.Sql[] = [Prisma.sql`i.workspace_id = ${criteria.workspaceId}`];
  if (criteria.queueIds) where.push(Prisma.sql`i.queue_id = ANY(${criteria.queueIds}::int[])`);
  if (criteria.statusIds) where.push(Prisma.sql`i.status_id = ANY(${criteria.statusIds}::int[])`);
  if (criteria.assigneeIds) where.push(Prisma.sql`i.assignee_id = ANY(${criteria.assigneeIds}::int[])`);
  if (criteria.assigneeId !== undefined) where.push(Prisma.sql`i.assignee_id = ${criteria.assigneeId}`);
  if (criteria.priority) where.push(Prisma.sql`i.priority::text = ${criteria.priority}`);
  if (criteria.category) where.push(Prisma.sql`s.category::text = ${criteria.category}`);
  if (criteria.dueBefore) where.push(Prisma.sql`i.due_date < ${criteria.dueBefore}::date AND s.category <> 'done'`);
  if (criteria.label) where.push(Prisma.sql`${criteria.label} = ANY(i.labels)`);
  if (criteria.text) {
    where.push(Prisma.sql`i.id IN (
      SELECT id FROM issues WHERE search_vector @@ websearch_to_tsquery('simple', ${criteria.text})
      UNION
      SELECT issue_id FROM comments WHERE search_vector @@ websearch_to_tsquery('simple', ${criteria.text}))`);
  }
  return Prisma.sql`
    SELECT ${Prisma.raw(ISSUE_RECORD_COLUMNS)} FROM issues i JOIN statuses s ON s.id = i.status_id
    WHERE ${Prisma.join(where, ' AND ')}
    ORDER BY i.updated_at DESC, i.id DESC
    LIMIT ${criteria.limit}`;
}

export function searchRepository(pool: Pool) {
  return {
    async search(criteria: SearchCriteria): Promise<IssueRecord[]> {
      if (criteria.queueIds?.length === 0) return [];
      const sql = searchSql(criteria);
      return (await pool.query<IssueRecord>(sql.text, sql.values)).rows;
    },
  };
}

export type SearchRepository = ReturnType<typeof searchRepository>;
