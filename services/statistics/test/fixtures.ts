import { STANDARD_STATUSES } from '@tracker/contracts';
import { buildEvent, type EventEnvelope, type EventType, type NewEvent } from '@tracker/events';
import { issueStateFixture } from '@tracker/testing';
import type { IssueStateData, QueueStateData } from '../src/domain/replica';

/** Ids of replicated rows: unique within a test file (each file has its own schema). */
let lastId = 0;
export const newId = () => ++lastId;

/** A seeded generator, so a failing random test can be replayed with its seed. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
    shuffle: <T>(items: T[]): T[] => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
  };
}
export type Rng = ReturnType<typeof rng>;


export function queueState(workspaceId: number, key: string, at = new Date('2026-01-01T00:00:00Z')): QueueStateData {
  return {
    id: newId(),
    workspace_id: workspaceId,
    key,
    name: `Queue ${key}`,
    description: '',
    statuses: STANDARD_STATUSES.map((status) => ({ id: newId(), ...status })),
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
  };
}

export const statusOf = (queue: QueueStateData, category: 'open' | 'progress' | 'done') => queue.statuses.find((s) => s.category === category)!;

let issueNumber = 0;
export function issueState(queue: QueueStateData, fields: Partial<IssueStateData> = {}, at = new Date('2026-01-01T00:00:00Z')): IssueStateData {
  const open = statusOf(queue, 'open');
  return issueStateFixture({
    id: newId(),
    workspace_id: queue.workspace_id,
    queue_id: queue.id,
    key: `${queue.key}-${++issueNumber}`,
    status_id: open.id,
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
    ...fields,
  });
}

export function event<T extends EventType>(type: T, workspaceId: number, aggregateId: number, revision: number, data: NewEvent<T>['data'], at?: Date): EventEnvelope<T> {
  return buildEvent({ type, workspaceId, aggregateId, revision, actorId: 1, data, occurredAt: at });
}

const WORDS = ['falcon', 'harbor', 'quartz', 'meadow', 'lantern', 'cobalt', 'orchid', 'tundra'];

/** An issue's whole life as events, and the state after each revision (what a snapshot could serve). */
export interface IssueHistory {
  events: EventEnvelope[];
  /** states[r - 1]: the issue and its comments right after revision r. */
  states: Array<{ revision: number; issue: IssueStateData; comments: Array<{ id: number; body: string }> }>;
}

/** A random history of `revisions` changes: creation, then updates, comments and worklogs. */
export function issueHistory(r: Rng, queue: QueueStateData, assignees: number[], revisions: number, start: Date): IssueHistory {
  let at = start.getTime();
  const tick = () => new Date((at += r.int(1, 5000))).toISOString();
  let issue = issueState(queue, { title: `Start ${r.pick(WORDS)}`, description: `About ${r.pick(WORDS)}` }, new Date(at));
  const comments: Array<{ id: number; body: string }> = [];
  const events: EventEnvelope[] = [event('issue.created', queue.workspace_id, issue.id, 1, { issue }, new Date(issue.updated_at))];
  const states: IssueHistory['states'] = [{ revision: 1, issue, comments: [] }];
  for (let revision = 2; revision <= revisions; revision++) {
    const kind = r.pick(['update', 'update', 'comment', 'worklog'] as const);
    const updatedAt = tick();
    if (kind === 'update') {
      const status = r.pick(queue.statuses);
      issue = {
        ...issue,
        title: `${r.pick(WORDS)} ${revision}`,
        description: r.chance(0.5) ? `Now ${r.pick(WORDS)}` : issue.description,
        status_id: status.id,
        status_category: status.category,
        assignee_id: r.chance(0.3) ? null : r.pick(assignees),
        priority: r.pick(['low', 'normal', 'high', 'critical'] as const),
        labels: r.chance(0.5) ? [r.pick(WORDS)] : [],
        due_date: r.chance(0.5) ? `2025-0${r.int(1, 9)}-1${r.int(0, 9)}` : null,
        estimate_minutes: r.int(0, 600),
        version: issue.version + 1,
        updated_at: updatedAt,
      };
      events.push(event('issue.updated', queue.workspace_id, issue.id, revision, { issue, changes: [] }, new Date(updatedAt)));
    } else if (kind === 'comment') {
      issue = { ...issue, updated_at: updatedAt };
      const comment = { id: newId(), body: `Comment ${r.pick(WORDS)}` };
      comments.push(comment);
      events.push(
        event('comment.added', queue.workspace_id, issue.id, revision, { issue, comment: { id: comment.id, author_id: 1, body: comment.body, created_at: updatedAt } }, new Date(updatedAt)),
      );
    } else {
      const minutes = r.int(1, 120);
      issue = { ...issue, spent_minutes: issue.spent_minutes + minutes, updated_at: updatedAt };
      events.push(event('worklog.added', queue.workspace_id, issue.id, revision, { issue, worklog: { id: newId(), author_id: 1, minutes, created_at: updatedAt } }, new Date(updatedAt)));
    }
    states.push({ revision, issue, comments: [...comments] });
  }
  return { events, states };
}

/** A queue's life: created, then renamed `updates` times. */
export function queueHistory(workspaceId: number, key: string, updates: number, start: Date) {
  const first = queueState(workspaceId, key, start);
  const states = [{ revision: 1, queue: first }];
  const events: EventEnvelope[] = [event('queue.created', workspaceId, first.id, 1, { queue: first }, start)];
  for (let revision = 2; revision <= updates + 1; revision++) {
    const at = new Date(start.getTime() + revision * 1000);
    const queue = { ...states[states.length - 1]!.queue, name: `Queue ${key} v${revision}`, updated_at: at.toISOString() };
    states.push({ revision, queue });
    events.push(event('queue.updated', workspaceId, queue.id, revision, { queue }, at));
  }
  return { events, states };
}
