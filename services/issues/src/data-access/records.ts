import type { IssueRecord, QueueRecord, StatusRecord } from '../domain/model';
import type { Issue, Queue, Status } from '../generated/prisma/client';

/** Row → record mappers shared by the repositories. */

export const statusSelect = { id: true, name: true, category: true } as const;
export const issueInclude = { status: { select: statusSelect } } as const;
export const queueInclude = { statuses: { orderBy: { position: 'asc' } } } as const;

export const toStatusRecord = (s: Status): StatusRecord => ({
  id: s.id,
  queueId: s.queueId,
  name: s.name,
  category: s.category,
  position: s.position,
});

export const toQueueRecord = (q: Queue & { statuses: Status[] }): QueueRecord => ({
  id: q.id,
  workspaceId: q.workspaceId,
  key: q.key,
  name: q.name,
  description: q.description,
  revision: q.revision,
  statuses: q.statuses.map(toStatusRecord),
  createdAt: q.createdAt,
  updatedAt: q.updatedAt,
});

type IssueRow = Issue & { status: Pick<Status, 'id' | 'name' | 'category'> };

/** `date` columns come back as UTC midnight. */
export const toDateOnly = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);
export const fromDateOnly = (s: string | null) => (s === null ? null : new Date(`${s}T00:00:00.000Z`));

export const toIssueRecord = (i: IssueRow): IssueRecord => ({
  id: i.id,
  workspaceId: i.workspaceId,
  queueId: i.queueId,
  key: i.key,
  title: i.title,
  description: i.description,
  status_id: i.statusId,
  status: { id: i.status.id, name: i.status.name, category: i.status.category },
  position: i.position,
  assignee_id: i.assigneeId,
  parent_id: i.parentId,
  priority: i.priority,
  type: i.type,
  labels: i.labels,
  due_date: toDateOnly(i.dueDate),
  estimate_minutes: i.estimateMinutes,
  spentMinutes: i.spentMinutes,
  version: i.version,
  revision: i.revision,
  createdBy: i.createdBy,
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
});
