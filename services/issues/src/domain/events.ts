import { buildEvent, type EventEnvelope } from '@tracker/events';
import type { CommentRecord, FieldChange, IssueRecord, QueueRecord, RequestContext, WorklogRecord } from './model';

/** Integration events (libs/events) built from records, stamped with the aggregate's revision. */

export const queueState = (q: QueueRecord) => ({
  id: q.id,
  workspace_id: q.workspaceId,
  key: q.key,
  name: q.name,
  description: q.description,
  statuses: q.statuses.map((s) => ({ id: s.id, name: s.name, category: s.category, position: s.position })),
  created_at: q.createdAt.toISOString(),
  updated_at: q.updatedAt.toISOString(),
});

export const issueState = (i: IssueRecord) => ({
  id: i.id,
  workspace_id: i.workspaceId,
  queue_id: i.queueId,
  key: i.key,
  title: i.title,
  // Statistics filter by free text too, so the replica needs the text.
  description: i.description,
  status_id: i.status_id,
  status_category: i.status.category,
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

const envelope = (ctx: RequestContext, aggregate: { id: number; workspaceId: number; revision: number }) => ({
  workspaceId: aggregate.workspaceId,
  aggregateId: aggregate.id,
  revision: aggregate.revision,
  actorId: ctx.userId,
  requestId: ctx.requestId,
});

export const queueEvent = (type: 'queue.created' | 'queue.updated', ctx: RequestContext, queue: QueueRecord): EventEnvelope =>
  buildEvent({ type, ...envelope(ctx, queue), data: { queue: queueState(queue) } });

export const issueCreated = (ctx: RequestContext, issue: IssueRecord): EventEnvelope =>
  buildEvent({ type: 'issue.created', ...envelope(ctx, issue), data: { issue: issueState(issue) } });

/** `changes` as history shows them (history.rules.ts shownChanges): a long text cut, with `from_truncated` / `to_truncated`. */
export const issueUpdated = (ctx: RequestContext, issue: IssueRecord, changes: Array<FieldChange & { from_truncated: boolean; to_truncated: boolean }>): EventEnvelope =>
  buildEvent({ type: 'issue.updated', ...envelope(ctx, issue), data: { issue: issueState(issue), changes } });

export const commentAdded = (ctx: RequestContext, issue: IssueRecord, comment: CommentRecord): EventEnvelope =>
  buildEvent({
    type: 'comment.added',
    ...envelope(ctx, issue),
    data: {
      issue: issueState(issue),
      comment: { id: comment.id, author_id: comment.authorId, body: comment.body, created_at: comment.createdAt.toISOString() },
    },
  });

export const worklogAdded = (ctx: RequestContext, issue: IssueRecord, worklog: WorklogRecord): EventEnvelope =>
  buildEvent({
    type: 'worklog.added',
    ...envelope(ctx, issue),
    data: {
      issue: issueState(issue),
      worklog: { id: worklog.id, author_id: worklog.authorId, minutes: worklog.minutes, created_at: worklog.createdAt.toISOString() },
    },
  });
