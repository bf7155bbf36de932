import type { z } from 'zod';
import type {
  Comment as CommentJson,
  HistoryEntry as HistoryJson,
  HistoryValue,
  Issue as IssueJson,
  IssueDetails as IssueDetailsJson,
  IssueLink as LinkJson,
  IssueRef as IssueRefJson,
  IssueSummary as IssueSummaryJson,
  Queue as QueueJson,
  SnapshotCommentsPage,
  SnapshotIssuesPage,
  SnapshotQueuesPage,
  Status as StatusJson,
  Worklog as WorklogJson,
} from '@tracker/contracts';
import { issueState, queueState } from '../domain/events';
import { issueWireFields } from '../domain/issue-wire';
import type { SnapshotPageOf } from '../domain/snapshot.use-case';
import type {
  CommentRecord,
  CommentTextRecord,
  HistoryRecord,
  IssueDetails,
  IssueListName,
  IssueLists,
  IssueRecord,
  IssueRef,
  IssueSummaryRecord,
  LinkRecord,
  ListPageOf,
  QueueRecord,
  QueueWithRole,
  StatusRecord,
  WorklogRecord,
} from '../domain/model';

/** The JSON shapes of libs/contracts (documented in services/issues/README.md). */

export const statusJson = (s: StatusRecord): StatusJson => ({ id: s.id, queue_id: s.queueId, name: s.name, category: s.category, position: s.position });

export const queueJson = (q: QueueWithRole): QueueJson => ({
  id: q.id,
  workspace_id: q.workspaceId,
  key: q.key,
  name: q.name,
  description: q.description,
  statuses: q.statuses.map(statusJson),
  role: q.role,
  role_source: q.roleSource,
  created_at: q.createdAt.toISOString(),
  updated_at: q.updatedAt.toISOString(),
});

/*
 * An issue's JSON is its wire fields with more added to that same object (Object.assign),
 * not spread into a new one: a search maps up to 2000 issues, and copying twenty fields
 * into a fresh object per row made its mapping and JSON three times as costly (1,219 rows:
 * 8-11 ms against 3; bench/README.md, B4).
 */
export const issueJson = (i: IssueRecord): IssueJson =>
  Object.assign(issueWireFields(i), { status: i.status, position: i.position, created_by: i.createdBy });

export const issueSummaryJson = (i: IssueSummaryRecord): IssueSummaryJson => Object.assign(issueJson(i), { description_truncated: i.descriptionTruncated });

export const issueRefJson = (r: IssueRef): IssueRefJson => ({
  id: r.id,
  key: r.key,
  queue_id: r.queueId,
  title: r.title,
  status: r.status,
  assignee_id: r.assigneeId,
  priority: r.priority,
});

export const commentJson = (c: CommentRecord): CommentJson => ({
  id: c.id,
  issue_id: c.issueId,
  author_id: c.authorId,
  body: c.body,
  created_at: c.createdAt.toISOString(),
});

export const worklogJson = (w: WorklogRecord): WorklogJson => ({
  id: w.id,
  issue_id: w.issueId,
  author_id: w.authorId,
  minutes: w.minutes,
  description: w.description,
  created_at: w.createdAt.toISOString(),
});

// History rows hold the fields' API names and their JSON values (history.rules.ts).
const historyJson = (h: HistoryRecord): HistoryJson => ({
  field: h.field,
  from: h.from as HistoryValue,
  to: h.to as HistoryValue,
  from_truncated: h.fromTruncated,
  to_truncated: h.toTruncated,
  actor_id: h.actorId,
  at: h.at.toISOString(),
});

const linkJson = (l: LinkRecord): LinkJson => Object.assign(issueRefJson(l.issue), { type: l.type, direction: l.direction, linked_at: l.createdAt.toISOString() });

const LIST_ITEM_JSON: { [L in IssueListName]: (item: IssueLists[L]) => unknown } = {
  comments: commentJson,
  worklogs: worklogJson,
  history: historyJson,
  links: linkJson,
  subtasks: issueRefJson,
};

export const issueDetailsJson = (d: IssueDetails): IssueDetailsJson =>
  Object.assign(issueJson(d), {
    comments: d.comments.map(commentJson),
    comments_total: d.totals.comments,
    worklogs: d.worklogs.map(worklogJson),
    worklogs_total: d.totals.worklogs,
    history: d.history.map(historyJson),
    history_total: d.totals.history,
    links: d.links.map(linkJson),
    links_total: d.totals.links,
    subtasks: d.subtasks.map(issueRefJson),
    subtasks_total: d.totals.subtasks,
  });

/** CommentPage, WorklogPage, HistoryPage, LinkPage, SubtaskPage. */
export function listPageJson<L extends IssueListName>(list: L, page: ListPageOf<IssueLists[L]>) {
  const item = LIST_ITEM_JSON[list] as (item: IssueLists[L]) => unknown;
  return { items: page.items.map(item), total: page.total, next_after_id: page.nextAfterId };
}

/**
 * The replica's snapshot pages (contracts snapshot.ts): queues and issues as their events
 * carry them, with their revision. Each satisfies the page schema the statistics service
 * checks it against, so a change on one side that the other would refuse stops the build.
 */
export const queuesSnapshotJson = (page: SnapshotPageOf<'queues', QueueRecord>) =>
  ({
    queues: page.queues.map((q) => ({ revision: q.revision, queue: queueState(q) })),
    next_after_id: page.nextAfterId,
  }) satisfies z.input<typeof SnapshotQueuesPage>;

export const issuesSnapshotJson = (page: SnapshotPageOf<'issues', IssueRecord>) =>
  ({
    issues: page.issues.map((i) => ({ revision: i.revision, issue: issueState(i) })),
    next_after_id: page.nextAfterId,
  }) satisfies z.input<typeof SnapshotIssuesPage>;

export const commentsSnapshotJson = (page: SnapshotPageOf<'comments', CommentTextRecord>) =>
  ({
    comments: page.comments.map((c) => ({ id: c.id, issue_id: c.issueId, body: c.body })),
    next_after_id: page.nextAfterId,
  }) satisfies z.input<typeof SnapshotCommentsPage>;
