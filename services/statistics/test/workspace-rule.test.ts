import { NO_REFS, replicaRefsOf, workspaceConflict, type HeldWorkspaces } from '../src/domain/workspace-rule';
import { event, issueState, newId, queueState } from './fixtures';

/** What the replica holds, as plain [id, value] pairs. */
const held = (h: { queues?: Array<[number, number]>; issues?: Array<[number, number]>; comments?: Array<[number, number]> } = {}): HeldWorkspaces => ({
  queues: new Map(h.queues ?? []),
  issues: new Map(h.issues ?? []),
  comments: new Map(h.comments ?? []),
});
const at = new Date('2026-03-01T00:00:00Z').toISOString();
const comment = (id = newId()) => ({ id, author_id: 1, body: 'text', created_at: at });

describe('workspace rule', () => {
  const queue = queueState(1, 'OPS');
  const issue = issueState(queue, { parent_id: 900 });

  test('an event names its queue, or its issue with the issue\'s queue, parent and comment; other events name nothing', () => {
    const c = comment();
    expect(replicaRefsOf(event('queue.updated', 1, queue.id, 2, { queue }))).toEqual({ queueIds: [queue.id], issueIds: [], commentIds: [] });
    expect(replicaRefsOf(event('issue.updated', 1, issue.id, 2, { issue, changes: [] }))).toEqual({ queueIds: [queue.id], issueIds: [issue.id, 900], commentIds: [] });
    expect(replicaRefsOf(event('comment.added', 1, issue.id, 2, { issue: { ...issue, parent_id: null }, comment: c }))).toEqual({
      queueIds: [queue.id],
      issueIds: [issue.id],
      commentIds: [c.id],
    });
    expect(replicaRefsOf(event('user.updated', 1, 5, 1, { user: { id: 5, name: 'Ada', role: 'member', active: true } }))).toEqual(NO_REFS);
  });

  test('when the replica holds nothing of the rows, or holds them in the event\'s workspace, then the event is accepted', () => {
    const events = [
      event('queue.created', 1, queue.id, 1, { queue }),
      event('issue.created', 1, issue.id, 1, { issue }),
      event('worklog.added', 1, issue.id, 3, { issue, worklog: { id: newId(), author_id: 1, minutes: 5, created_at: at } }),
      event('comment.added', 1, issue.id, 4, { issue, comment: comment(44) }),
    ];
    const same = held({ queues: [[queue.id, 1]], issues: [[issue.id, 1], [900, 1]], comments: [[44, issue.id]] });
    for (const e of events) {
      expect(workspaceConflict(e, held())).toBeNull();
      expect(workspaceConflict(e, same)).toBeNull();
    }
  });

  test('when the replica holds the queue in another workspace, then a queue event is refused', () => {
    expect(workspaceConflict(event('queue.updated', 1, queue.id, 2, { queue }), held({ queues: [[queue.id, 2]] }))).toEqual({
      rule: 'queue_workspace',
      message: `queue ${queue.id} is in workspace 2, not in the event's workspace 1`,
      claimed: 1,
      held: 2,
    });
  });

  test('when the issue, its queue or its parent is held in another workspace, then the issue event is refused', () => {
    const updated = event('issue.updated', 1, issue.id, 2, { issue, changes: [] });
    expect(workspaceConflict(updated, held({ issues: [[issue.id, 2]] }))).toMatchObject({ rule: 'issue_workspace', claimed: 1, held: 2 });
    expect(workspaceConflict(updated, held({ queues: [[queue.id, 3]] }))).toMatchObject({ rule: 'issue_queue_workspace', claimed: 1, held: 3 });
    expect(workspaceConflict(updated, held({ issues: [[issue.id, 1], [900, 4]] }))).toMatchObject({ rule: 'parent_workspace', claimed: 1, held: 4 });
    // The same rules for every event carrying an issue state.
    const worklog = event('worklog.added', 1, issue.id, 3, { issue, worklog: { id: newId(), author_id: 1, minutes: 5, created_at: at } });
    const commented = event('comment.added', 1, issue.id, 3, { issue, comment: comment() });
    for (const e of [worklog, commented]) expect(workspaceConflict(e, held({ queues: [[queue.id, 3]] }))).toMatchObject({ rule: 'issue_queue_workspace' });
  });

  test('when the state an event carries is of another workspace than its envelope, then it is refused whatever the replica holds', () => {
    expect(workspaceConflict(event('queue.created', 2, queue.id, 1, { queue }), held())).toMatchObject({ rule: 'state_workspace', claimed: 2, held: 1 });
    expect(workspaceConflict(event('issue.created', 2, issue.id, 1, { issue }), held())).toMatchObject({ rule: 'state_workspace', claimed: 2, held: 1 });
  });

  test('when a comment is held on another issue, then the comment event is refused', () => {
    const c = comment();
    expect(workspaceConflict(event('comment.added', 1, issue.id, 2, { issue, comment: c }), held({ comments: [[c.id, issue.id + 1]] }))).toEqual({
      rule: 'comment_issue',
      message: `comment ${c.id} belongs to issue ${issue.id + 1}, not to issue ${issue.id}`,
      claimed: issue.id,
      held: issue.id + 1,
    });
  });

  test('permission and user events are never refused by it', () => {
    expect(workspaceConflict(event('permission.changed', 1, 1, 1, { queue_id: queue.id, user_id: 3, role: 'admin' }), held({ queues: [[queue.id, 9]] }))).toBeNull();
  });
});
