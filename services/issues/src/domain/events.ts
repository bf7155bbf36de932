import { buildEvent, type EventEnvelope } from '@tracker/events';
import type { HistoryChange } from './history.rules';
import { issueWireFields } from './issue-wire';
import type { CommentRecord, IssueRecord, QueueRecord, RequestContext, WorklogRecord } from './model';

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

/**
 * The issue as its events carry it: the statistics replica keeps the status category (and
 * the text, to filter by it); the notifications service's public events carry the issue as
 * the API answers it, hence its status name, position and author too.
 */
export const issueState = (i: IssueRecord) =>
  Object.assign(issueWireFields(i), { status_category: i.status.category, status_name: i.status.name, position: i.position, created_by: i.createdBy });

const envelope = (ctx: RequestContext, aggregate: { id: number; workspaceId: number; revision: number }) => ({
  workspaceId: aggregate.workspaceId,
  aggregateId: aggregate.id,
  revision: aggregate.revision,
  actorId: ctx.userId,
  requestId: ctx.requestId,
});

export const queueCreated = (ctx: RequestContext, queue: QueueRecord): EventEnvelope =>
  buildEvent({ type: 'queue.created', ...envelope(ctx, queue), data: { queue: queueState(queue) } });

/** `previous`: the old value of each setting that changed. */
export const queueUpdated = (ctx: RequestContext, queue: QueueRecord, previous: { name?: string; description?: string }): EventEnvelope =>
  buildEvent({ type: 'queue.updated', ...envelope(ctx, queue), data: { queue: queueState(queue), previous } });

export const issueCreated = (ctx: RequestContext, issue: IssueRecord): EventEnvelope =>
  buildEvent({ type: 'issue.created', ...envelope(ctx, issue), data: { issue: issueState(issue) } });

/** `changes` as history shows them (history.rules.ts shownChanges): a long text cut, with `from_truncated` / `to_truncated`. */
export const issueUpdated = (ctx: RequestContext, issue: IssueRecord, changes: Array<HistoryChange & { from_truncated: boolean; to_truncated: boolean }>): EventEnvelope =>
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
      worklog: { id: worklog.id, author_id: worklog.authorId, minutes: worklog.minutes, description: worklog.description, created_at: worklog.createdAt.toISOString() },
    },
  });
