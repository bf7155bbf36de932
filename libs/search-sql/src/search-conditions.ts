import type { SearchCriteria } from '@tracker/contracts';
import { raw, sql, type SqlQuery } from '@tracker/kit';

/**
 * The conditions of an issue search other than free text, over an issues-shaped table
 * (alias i: workspace_id, queue_id, status_id, assignee_id, priority, due_date, labels).
 * The issues service's search and the statistics service's replica both filter with
 * these, so the same filters select the same issues in both.
 *
 * `statusCategory` names the column holding the status category: the issues service
 * joins its statuses (`s.category`), the replica keeps it on the issue
 * (`i.status_category`). It is a fixed column name written in code, never input.
 */
export function searchConditions(criteria: SearchCriteria, statusCategory: string): SqlQuery[] {
  const category = raw(statusCategory);
  const where: SqlQuery[] = [sql`i.workspace_id = ${criteria.workspaceId}`];
  if (criteria.queueIds) where.push(sql`i.queue_id = ANY(${criteria.queueIds}::int[])`);
  if (criteria.statusIds) where.push(sql`i.status_id = ANY(${criteria.statusIds}::int[])`);
  if (criteria.assigneeIds) where.push(sql`i.assignee_id = ANY(${criteria.assigneeIds}::int[])`);
  if (criteria.assigneeId !== undefined) where.push(sql`i.assignee_id = ${criteria.assigneeId}`);
  // Compared as the enum types, not as text, so the planner can use the columns' statistics.
  if (criteria.priority) where.push(sql`i.priority = ${criteria.priority}::issue_priority`);
  if (criteria.category) where.push(sql`${category} = ${criteria.category}::status_category`);
  if (criteria.dueBefore) where.push(sql`i.due_date < ${criteria.dueBefore}::date AND ${category} <> 'done'`);
  if (criteria.label) where.push(sql`${criteria.label} = ANY(i.labels)`);
  return where;
}

/** The free-text query both searches match `search_vector` columns against. */
export function searchTextQuery(text: string): SqlQuery {
  return sql`websearch_to_tsquery('simple', ${text})`;
}
