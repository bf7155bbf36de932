import { buildEvent, parseEvent, routingKeyOf, toOutboxRow } from '../src';

const issue = {
  id: 7,
  workspace_id: 1,
  queue_id: 2,
  key: 'OPS-7',
  title: 'Disk full',
  status_id: 3,
  status_category: 'open' as const,
  assignee_id: null,
  parent_id: null,
  priority: 'high' as const,
  type: 'task',
  labels: ['infra'],
  due_date: '2026-12-01',
  estimate_minutes: 30,
  spent_minutes: 0,
  version: 1,
  created_at: '2026-11-22T03:00:00.000Z',
  updated_at: '2026-11-22T03:00:00.000Z',
};

describe('integration events', () => {
  test('when an event is built, then it carries id, aggregate and revision and survives a JSON round trip', () => {
    const event = buildEvent({ type: 'issue.created', workspaceId: 1, aggregateId: 7, revision: 1, actorId: 5, data: { issue } });
    expect(event).toMatchObject({ type: 'issue.created', workspace_id: 1, aggregate: { type: 'issue', id: '7', revision: 1 }, actor_id: 5, request_id: null });
    expect(parseEvent(JSON.parse(JSON.stringify(event)))).toEqual(event);
  });

  test('when the data does not match the type, then building throws (the writing transaction fails)', () => {
    expect(() => buildEvent({ type: 'issue.created', workspaceId: 1, aggregateId: 7, revision: 1, actorId: 5, data: { issue: { ...issue, priority: 'urgent' as never } } })).toThrow();
  });

  test.each([
    ['an unknown type', (e: any) => ({ ...e, type: 'issue.deleted' })],
    ['a revision of 0', (e: any) => ({ ...e, aggregate: { ...e.aggregate, revision: 0 } })],
    ['a wrong aggregate type', (e: any) => ({ ...e, aggregate: { ...e.aggregate, type: 'queue' } })],
    ['no event id', (e: any) => ({ ...e, event_id: undefined })],
    ['data of another type', (e: any) => ({ ...e, data: { queue_id: 1, user_id: 1, role: null } })],
  ])('when a delivered message has %s, then parsing rejects it (a poison message)', (_label, spoil) => {
    const event = buildEvent({ type: 'issue.created', workspaceId: 1, aggregateId: 7, revision: 1, actorId: 5, data: { issue } });
    expect(() => parseEvent(spoil(JSON.parse(JSON.stringify(event))))).toThrow();
  });

  test('the outbox row mirrors the envelope with its routing key', () => {
    const event = buildEvent({ type: 'permission.changed', workspaceId: 1, aggregateId: '2:9', revision: 3, actorId: 1, data: { queue_id: 2, user_id: 9, role: 'read-only' } });
    expect(toOutboxRow(event)).toEqual({
      eventId: event.event_id,
      type: 'permission.changed',
      routingKey: 'tracker.permission.changed',
      workspaceId: 1,
      aggregateType: 'queue_permission',
      aggregateId: '2:9',
      aggregateRevision: 3,
      payload: event,
    });
    expect(routingKeyOf('issue.updated')).toBe('tracker.issue.updated');
  });
});
