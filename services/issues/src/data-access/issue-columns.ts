import { ISSUE_READ_LIMITS } from '@tracker/contracts';
import type { IssueFields } from '../domain/model';

/**
 * Where each of an issue's fields (IssueFields) is stored. The insert and a PATCH's
 * update (issues.repository.ts) and every issue read (ISSUE_RECORD_COLUMNS below) are
 * built from this table: a new field is one line here.
 */
export const ISSUE_FIELD_COLUMNS: { readonly [F in keyof IssueFields]: string } = {
  title: 'title',
  description: 'description',
  statusId: 'status_id',
  position: 'position',
  assigneeId: 'assignee_id',
  parentId: 'parent_id',
  priority: 'priority',
  type: 'type',
  labels: 'labels',
  dueDate: 'due_date',
  estimateMinutes: 'estimate_minutes',
};

export const ISSUE_FIELDS = Object.keys(ISSUE_FIELD_COLUMNS) as ReadonlyArray<keyof IssueFields>;

type ReadAs = { readonly [F in keyof IssueFields]?: string };

/** A field whose column does not hold its value as the record gives it (alias i): a date, as `YYYY-MM-DD` text. */
const READ_AS: ReadAs = { dueDate: `to_char(i.${ISSUE_FIELD_COLUMNS.dueDate}, 'YYYY-MM-DD')` };

/** An issue (alias i) as an IssueRecord row, each field read as `read` says or else from its column, with `more` after it. */
const recordColumns = (read: ReadAs, more = '') => `
  i.id, i.workspace_id AS "workspaceId", i.queue_id AS "queueId", i.key,
  ${ISSUE_FIELDS.map((field) => `${read[field] ?? `i.${ISSUE_FIELD_COLUMNS[field]}`} AS "${field}"`).join(', ')},
  (SELECT json_build_object('id', st.id, 'name', st.name, 'category', st.category) FROM statuses st WHERE st.id = i.status_id) AS status,
  i.spent_minutes AS "spentMinutes", i.version, i.revision, i.created_by AS "createdBy", i.created_at AS "createdAt", i.updated_at AS "updatedAt"${more}`;

/**
 * An issue (alias i) as an IssueRecord row: no mapping needed. Its status comes from a
 * subquery, not a join: a row locked with FOR NO KEY UPDATE after a concurrent update is
 * re-checked against a joined status row of the old status_id and silently dropped,
 * whereas the subquery is evaluated for the row as locked.
 */
export const ISSUE_RECORD_COLUMNS = recordColumns(READ_AS);

/**
 * As ISSUE_RECORD_COLUMNS, the description cut to its first ISSUE_READ_LIMITS.searchDescription
 * characters, and "descriptionTruncated" (an IssueSummaryRecord). `left` reads only the
 * start of a long (TOASTed) text, so a row costs the same whatever its description.
 */
const SUMMARY = ISSUE_READ_LIMITS.searchDescription;
export const ISSUE_SUMMARY_COLUMNS = recordColumns(
  { ...READ_AS, description: `left(i.description, ${SUMMARY})` },
  `, length(left(i.description, ${SUMMARY + 1})) > ${SUMMARY} AS "descriptionTruncated"`,
);
