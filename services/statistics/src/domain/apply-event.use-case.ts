import type { EventEnvelope } from '@tracker/events';
import { isDatabaseUnavailable, type ItemResult } from '@tracker/kit';
import type { ReplicaStore } from './ports';
import type { CommentRow, IssueRow, QueueRow } from './replica';
import { replicaRefsOf, workspaceConflict, WorkspaceConflictError, type HeldWorkspaces, type ReplicaRefs } from './workspace-rule';

export type ApplyOutcome = 'applied' | 'stale' | 'ignored';

/**
 * Applies one integration event to the replica in one transaction: the aggregate's new
 * state is written only if `aggregate.revision` is newer than the stored one, so a
 * duplicate or an event overtaken by a newer one changes nothing. A comment's text is
 * a fact of its own (not part of the issue state), inserted once by comment id even
 * when the issue state it came with is stale.
 *
 * An event that contradicts the workspaces the replica holds (workspace-rule.ts) throws
 * WorkspaceConflictError before anything is written.
 */
export async function applyEvent(replica: ReplicaStore, event: EventEnvelope): Promise<ApplyOutcome> {
  const [outcome] = await applyTogether(replica, [event]);
  return outcome!;
}

/**
 * Applies the events of one delivery batch in one transaction: each aggregate's newest
 * state among them is written (with the same revision rule), so the replica ends as if
 * they had been applied one by one, in a few statements instead of a transaction each.
 * If any of them is refused or fails, they are applied one at a time instead, in order,
 * so that only that one is refused (or retried) and the others are applied. When the
 * database is unavailable every event fails at once with that error (each is retried
 * later), rather than waiting for the database once per event.
 */
export async function applyEvents(replica: ReplicaStore, events: EventEnvelope[]): Promise<ItemResult<ApplyOutcome>[]> {
  if (events.length > 1) {
    try {
      return (await applyTogether(replica, events)).map((value) => ({ ok: true, value }));
    } catch (error) {
      if (isDatabaseUnavailable(error)) return events.map(() => ({ ok: false, error }));
      // Otherwise one at a time below: each event's own outcome or error.
    }
  }
  const results: ItemResult<ApplyOutcome>[] = [];
  for (const event of events) {
    results.push(await applyEvent(replica, event).then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error })));
  }
  return results;
}

/** What an event writes to the replica: the aggregate state it carries, and a comment's text. */
interface EventWrite {
  queue?: QueueRow;
  issue?: IssueRow;
  comment?: CommentRow;
}

async function applyTogether(replica: ReplicaStore, events: EventEnvelope[]): Promise<ApplyOutcome[]> {
  const writes = events.map(writeOf);
  const carried = events.filter((_, i) => writes[i] !== null);
  if (carried.length === 0) return events.map(() => 'ignored');
  const at = new Date(Math.max(...carried.map((e) => Date.parse(e.occurred_at))));
  const queues = newestOfEach(writes.flatMap((w) => (w?.queue ? [w.queue] : [])), (r) => r.queue.id);
  const issues = newestOfEach(writes.flatMap((w) => (w?.issue ? [w.issue] : [])), (r) => r.issue.id);
  const comments = firstOfEach(writes.flatMap((w) => (w?.comment ? [w.comment] : [])));

  const written = await replica.transaction(async (w) => {
    const held = await w.heldWorkspaces(allRefs(carried.map(replicaRefsOf)));
    const known = withStatesOf(held, writes);
    for (const event of carried) {
      const conflict = workspaceConflict(event, known);
      if (conflict) throw new WorkspaceConflictError(conflict);
    }
    return {
      queues: new Set(await w.applyQueues(queues, at)),
      issues: new Set(await w.applyIssues(issues, at)),
      comments: new Set(await w.addComments(comments, at)),
    };
  });

  // An event is applied when a row it carried was written: its state won (newest in the batch and newer than the stored one), or its comment was new.
  const sent = new Set<object>([...queues, ...issues, ...comments]);
  const wrote = (write: EventWrite) =>
    (write.queue !== undefined && sent.has(write.queue) && written.queues.has(write.queue.queue.id)) ||
    (write.issue !== undefined && sent.has(write.issue) && written.issues.has(write.issue.issue.id)) ||
    (write.comment !== undefined && sent.has(write.comment) && written.comments.has(write.comment.id));
  return writes.map((write) => (write === null ? 'ignored' : wrote(write) ? 'applied' : 'stale'));
}

/** The rows an event writes; null for an event the replica does not keep (permissions, users). */
function writeOf(event: EventEnvelope): EventWrite | null {
  const revision = event.aggregate.revision;
  const sameAggregate = (id: number) => {
    // The revision counts the aggregate named in the envelope; a state of another one cannot be ordered by it.
    if (event.aggregate.id !== String(id)) throw new Error(`event ${event.event_id}: aggregate.id ${event.aggregate.id} does not match the state's id ${id}`);
  };
  switch (event.type) {
    case 'queue.created':
    case 'queue.updated': {
      const { queue } = (event as EventEnvelope<'queue.created'>).data;
      sameAggregate(queue.id);
      return { queue: { revision, queue } };
    }
    case 'issue.created':
    case 'issue.updated':
    case 'worklog.added': {
      const { issue } = (event as EventEnvelope<'issue.created'>).data;
      sameAggregate(issue.id);
      return { issue: { revision, issue } };
    }
    case 'comment.added': {
      const { issue, comment } = (event as EventEnvelope<'comment.added'>).data;
      sameAggregate(issue.id);
      return { issue: { revision, issue }, comment: { id: comment.id, issueId: issue.id, body: comment.body ?? null } };
    }
    default:
      return null;
  }
}

/** The newest state of each aggregate (the first of equal revisions), in id order so concurrent batches lock rows in one order. */
function newestOfEach<R extends { revision: number }>(rows: R[], idOf: (row: R) => number): R[] {
  const newest = new Map<number, R>();
  for (const row of rows) {
    const held = newest.get(idOf(row));
    if (!held || row.revision > held.revision) newest.set(idOf(row), row);
  }
  return [...newest.values()].sort((a, b) => idOf(a) - idOf(b));
}

/** One row per comment (one with its text when any has it), in id order. */
function firstOfEach(rows: CommentRow[]): CommentRow[] {
  const first = new Map<number, CommentRow>();
  for (const row of rows) {
    const held = first.get(row.id);
    if (!held || (held.body === null && row.body !== null)) first.set(row.id, row);
  }
  return [...first.values()].sort((a, b) => a.id - b.id);
}

function allRefs(refs: ReplicaRefs[]): ReplicaRefs {
  const unique = (ids: number[]) => [...new Set(ids)];
  return {
    queueIds: unique(refs.flatMap((r) => r.queueIds)),
    issueIds: unique(refs.flatMap((r) => r.issueIds)),
    commentIds: unique(refs.flatMap((r) => r.commentIds)),
  };
}

/**
 * What the replica holds, plus what the batch's own states say of rows it does not hold
 * yet (the first state of each): an event contradicting another event of the batch is a
 * conflict here, so the batch is applied one event at a time, where the workspace rule
 * decides between them as it would have without the batch.
 */
function withStatesOf(held: HeldWorkspaces, writes: Array<EventWrite | null>): HeldWorkspaces {
  const queues = new Map(held.queues);
  const issues = new Map(held.issues);
  const comments = new Map(held.comments);
  for (const write of writes) {
    if (write?.queue && !queues.has(write.queue.queue.id)) queues.set(write.queue.queue.id, write.queue.queue.workspace_id);
    if (write?.issue && !issues.has(write.issue.issue.id)) issues.set(write.issue.issue.id, write.issue.issue.workspace_id);
    if (write?.comment && !comments.has(write.comment.id)) comments.set(write.comment.id, write.comment.issueId);
  }
  return { queues, issues, comments };
}
