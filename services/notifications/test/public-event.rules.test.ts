import { PublicEvent } from '@tracker/contracts';
import { buildEvent } from '@tracker/events';
import { queueMemberFixture } from '@tracker/testing';
import { publicEventOf } from '../src/domain/public-event.rules';
import { events, issueState, queueState, userState } from './fixtures';

/** The public event, checked against the published schema: parsing drops what it does not declare, so equality means nothing extra either. */
const shown = (draft: ReturnType<typeof publicEventOf>) => {
  expect(draft).not.toBeNull();
  expect(PublicEvent.parse(draft!.event)).toEqual(draft!.event);
  return draft!;
};

const WS = 7;

describe('public events from integration events', () => {
  test('issue.created: the issue as the API answers it, who made it, to the readers of its queue', () => {
    const queue = queueState(WS, 'WEB');
    const issue = issueState(queue, { title: 'Login broken', description: 'Steps…', labels: ['ui'], assignee_id: 3, position: 2.5, created_by: 9 });
    const event = events.issueCreated(issue, { actor: 9 });
    const draft = shown(publicEventOf(event));
    expect(draft).toEqual({
      event: {
        id: event.event_id,
        type: 'issue.created',
        timestamp: event.occurred_at,
        workspace_id: WS,
        data: {
          issue: {
            id: issue.id,
            key: issue.key,
            workspace_id: WS,
            queue_id: queue.id,
            title: 'Login broken',
            description: 'Steps…',
            status_id: issue.status_id,
            assignee_id: 3,
            parent_id: null,
            priority: 'normal',
            type: 'task',
            labels: ['ui'],
            due_date: null,
            estimate_minutes: 0,
            spent_minutes: 0,
            version: 1,
            created_at: issue.created_at,
            updated_at: issue.updated_at,
            status: { id: issue.status_id, name: 'Open', category: 'open' },
            position: 2.5,
            created_by: 9,
          },
          actor_id: 9,
        },
      },
      queueId: queue.id,
      audience: 'queue_readers',
    });
  });

  test('issue.updated: `previous` holds the old value of each changed field in the API`s names, a history-cut text marked', () => {
    const queue = queueState(WS);
    const issue = issueState(queue, { title: 'New title', version: 3, status_id: queue.statuses[3]!.id, status_name: 'Done', status_category: 'done' });
    const event = events.issueUpdated(issue, [
      { field: 'title', from: 'Old title', to: 'New title', from_truncated: false, to_truncated: false },
      { field: 'status_id', from: queue.statuses[0]!.id, to: queue.statuses[3]!.id, from_truncated: false, to_truncated: false },
      { field: 'description', from: 'x'.repeat(1000), to: '', from_truncated: true, to_truncated: false },
      { field: 'assignee_id', from: null, to: 4 },
    ]);
    const draft = shown(publicEventOf(event));
    expect(draft.event.data).toMatchObject({
      issue: { title: 'New title', version: 3, status: { id: queue.statuses[3]!.id, name: 'Done', category: 'done' } },
      previous: { title: 'Old title', status_id: queue.statuses[0]!.id, description: 'x'.repeat(1000), description_truncated: true, assignee_id: null },
      actor_id: 1,
    });
    expect(Object.keys(draft.event.data.previous as object)).toEqual(['title', 'status_id', 'description', 'description_truncated', 'assignee_id']);
  });

  test('comment.added and worklog.added: the comment or worklog as the API answers it, with its issue`s key, to the queue`s readers', () => {
    const queue = queueState(WS, 'OPS');
    const issue = issueState(queue);
    const comment = events.commentAdded(issue, 'Looks good', { actor: 5 });
    expect(shown(publicEventOf(comment))).toEqual({
      event: expect.objectContaining({
        type: 'comment.added',
        data: {
          comment: { id: comment.data.comment.id, issue_id: issue.id, author_id: 5, body: 'Looks good', created_at: comment.data.comment.created_at, issue_key: issue.key },
          actor_id: 5,
        },
      }),
      queueId: queue.id,
      audience: 'queue_readers',
    });
    const worklog = events.worklogAdded(issue, 45, 'Review', { actor: 5 });
    expect(shown(publicEventOf(worklog)).event.data).toEqual({
      worklog: { id: worklog.data.worklog.id, issue_id: issue.id, author_id: 5, minutes: 45, description: 'Review', created_at: worklog.data.worklog.created_at, issue_key: issue.key },
      actor_id: 5,
    });
  });

  test('queue.created and queue.updated: the queue without a caller`s role, statuses in order with their queue, `previous` on the update', () => {
    const queue = queueState(WS, 'WEB', { name: 'Website' });
    const created = shown(publicEventOf(events.queueCreated({ ...queue, statuses: [...queue.statuses].reverse() })));
    expect(created.audience).toBe('queue_readers');
    expect(created.queueId).toBe(queue.id);
    expect(created.event.data.queue).toEqual({
      id: queue.id,
      workspace_id: WS,
      key: 'WEB',
      name: 'Website',
      description: '',
      statuses: queue.statuses.map((s) => ({ ...s, queue_id: queue.id })),
      created_at: queue.created_at,
      updated_at: queue.updated_at,
    });
    const updated = shown(publicEventOf(events.queueUpdated({ ...queue, name: 'Web' }, { name: 'Website' })));
    expect(updated.event.data).toMatchObject({ queue: { name: 'Web' }, previous: { name: 'Website' }, actor_id: 1 });
  });

  test('permission.changed: the permission as PUT answers it, the old explicit (and effective) role, to the queue`s admins only', () => {
    const grant = shown(publicEventOf(events.permissionChanged(WS, { queueId: 3, userId: 8, role: 'read-write', previousRole: null, name: 'Bob' })));
    expect(grant).toEqual({
      event: expect.objectContaining({
        type: 'permission.changed',
        data: {
          permission: { ...queueMemberFixture({ user_id: 8, name: 'Bob' }), queue_id: 3 },
          previous: { explicit_role: null, role: null, role_source: null },
          actor_id: 1,
        },
      }),
      queueId: 3,
      audience: 'queue_admins',
    });
    // A workspace admin's effective role does not move with the explicit one.
    const admin = shown(publicEventOf(events.permissionChanged(WS, { queueId: 3, userId: 2, role: null, previousRole: 'read-only', workspaceRole: 'admin' })));
    expect(admin.event.data).toMatchObject({ permission: { role: 'admin', role_source: 'inherited', explicit_role: null, inherited_role: 'admin' }, previous: { explicit_role: 'read-only' } });
    expect(Object.keys(admin.event.data.previous as object)).toEqual(['explicit_role']);
  });

  test('user.created and user.updated: the user as GET /users answers it, to every member; the operator`s change has no actor', () => {
    const user = userState({ id: 12, name: 'Grace', email: 'grace@example.com' });
    const created = shown(publicEventOf(events.userCreated(WS, user, { actor: null })));
    expect(created).toEqual({
      event: expect.objectContaining({ data: { user: { id: 12, workspace_id: WS, name: 'Grace', role: 'member', active: true, email: 'grace@example.com', created_at: user.created_at, updated_at: user.updated_at }, actor_id: null } }),
      queueId: null,
      audience: 'workspace',
    });
    const updated = shown(publicEventOf(events.userUpdated(WS, { ...user, active: false }, { active: true })));
    expect(updated.event.data).toMatchObject({ user: { active: false }, previous: { active: true } });
  });

  test('events from publishers too old to carry what the API answers are not shown (null)', () => {
    const queue = queueState(WS);
    const { position: _p, status_name: _s, created_by: _c, ...oldIssue } = issueState(queue);
    expect(publicEventOf(buildEvent({ type: 'issue.created', workspaceId: WS, aggregateId: oldIssue.id, revision: 1, actorId: 1, data: { issue: oldIssue } }))).toBeNull();
    expect(publicEventOf(buildEvent({ type: 'queue.updated', workspaceId: WS, aggregateId: queue.id, revision: 2, actorId: 1, data: { queue } }))).toBeNull();
    expect(publicEventOf(buildEvent({ type: 'permission.changed', workspaceId: WS, aggregateId: '1:2', revision: 1, actorId: 1, data: { queue_id: 1, user_id: 2, role: 'admin' } }))).toBeNull();
    expect(
      publicEventOf(buildEvent({ type: 'user.updated', workspaceId: WS, aggregateId: 2, revision: 2, actorId: 1, data: { user: { id: 2, name: 'Bob', role: 'member', active: true } } })),
    ).toBeNull();
  });
});
