import type { Category, Priority, QueueRole } from '@tracker/contracts';

/** Plain records the use cases work with; repositories map rows to these. */

export interface StatusRecord {
  id: number;
  queueId: number;
  name: string;
  category: Category;
  position: number;
}

export interface QueueRecord {
  id: number;
  workspaceId: number;
  key: string;
  name: string;
  description: string;
  revision: number;
  statuses: StatusRecord[];
  createdAt: Date;
  updatedAt: Date;
}

/** The fields of an issue that PATCH may change, with their API names. */
export interface IssueFields {
  title: string;
  description: string;
  status_id: number;
  position: number;
  assignee_id: number | null;
  parent_id: number | null;
  priority: Priority;
  type: string;
  labels: string[];
  /** `YYYY-MM-DD` */
  due_date: string | null;
  estimate_minutes: number;
}

export interface IssueRecord extends IssueFields {
  id: number;
  workspaceId: number;
  queueId: number;
  key: string;
  status: { id: number; name: string; category: Category };
  spentMinutes: number;
  version: number;
  revision: number;
  createdBy: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * An issue's own fields as they leave the service, named and formatted as the API and the
 * integration events both carry them; the API answer (routes/json.ts) and the event state
 * (events.ts) each add what only they carry.
 */
export const issueWireFields = (i: IssueRecord) => ({
  id: i.id,
  key: i.key,
  workspace_id: i.workspaceId,
  queue_id: i.queueId,
  title: i.title,
  description: i.description,
  status_id: i.status_id,
  assignee_id: i.assignee_id,
  parent_id: i.parent_id,
  priority: i.priority,
  type: i.type,
  labels: i.labels,
  due_date: i.due_date,
  estimate_minutes: i.estimate_minutes,
  spent_minutes: i.spentMinutes,
  version: i.version,
  created_at: i.createdAt.toISOString(),
  updated_at: i.updatedAt.toISOString(),
});

/** Another issue as links and subtasks show it. */
export interface IssueRef {
  id: number;
  key: string;
  queueId: number;
  title: string;
  status: { id: number; name: string; category: Category };
  assigneeId: number | null;
  priority: Priority;
}

export interface CommentRecord {
  id: number;
  issueId: number;
  authorId: number;
  body: string;
  createdAt: Date;
}

export interface WorklogRecord {
  id: number;
  issueId: number;
  authorId: number;
  minutes: number;
  description: string;
  createdAt: Date;
}

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface HistoryRecord extends FieldChange {
  /** Whether `from` / `to` show only the first characters of a longer text (history.rules.ts). */
  fromTruncated: boolean;
  toTruncated: boolean;
  actorId: number;
  at: Date;
}

export interface LinkRecord {
  type: 'mentions';
  direction: 'outward' | 'inward';
  issue: IssueRef;
  createdAt: Date;
}

/** The lists an issue read embeds the newest of, and their list endpoints page through. */
export interface IssueLists {
  comments: CommentRecord;
  worklogs: WorklogRecord;
  history: HistoryRecord;
  links: LinkRecord;
  subtasks: IssueRef;
}
export type IssueListName = keyof IssueLists;
export const ISSUE_LISTS: readonly IssueListName[] = ['comments', 'worklogs', 'history', 'links', 'subtasks'];

/** The newest of each list (oldest first) and how many there are, counted up to a cap. */
export type IssueAttachments = { [L in IssueListName]: IssueLists[L][] } & { totals: { [L in IssueListName]: number } };

export interface IssueDetails extends IssueRecord, IssueAttachments {}

/** One keyset page of a list: `nextAfterId` null on the last page. */
export interface ListPageOf<T> {
  items: T[];
  total: number;
  nextAfterId: number | null;
}

/** An issue as search returns it: the description cut to its first characters. */
export interface IssueSummaryRecord extends IssueRecord {
  descriptionTruncated: boolean;
}

export interface QueueWithRole extends QueueRecord {
  role: QueueRole;
  roleSource: 'explicit' | 'inherited';
}

export type { RequestContext } from '@tracker/authz';
