import type { Category, HistoryField, Priority, QueueRole } from '@tracker/contracts';

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

/**
 * The fields of an issue that PATCH may change. Their API names (`status_id`) are in
 * issue-wire.ts, their columns in data-access/issue-reads.repository.ts.
 */
export interface IssueFields {
  title: string;
  description: string;
  statusId: number;
  position: number;
  assigneeId: number | null;
  parentId: number | null;
  priority: Priority;
  type: string;
  labels: string[];
  /** `YYYY-MM-DD` */
  dueDate: string | null;
  estimateMinutes: number;
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

/** A comment's text, as the replica's snapshot pages carry it. */
export interface CommentTextRecord {
  id: number;
  issueId: number;
  body: string;
}

export interface WorklogRecord {
  id: number;
  issueId: number;
  authorId: number;
  minutes: number;
  description: string;
  createdAt: Date;
}

/** A change a PATCH makes to one field; history.rules.ts gives it the field's API name to store and send it. */
export interface FieldChange {
  field: keyof IssueFields;
  from: unknown;
  to: unknown;
}

/** A history entry as stored: `field` is the API's name of the field (or `created`), data the API shows as is. */
export interface HistoryRecord {
  field: HistoryField;
  from: unknown;
  to: unknown;
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
