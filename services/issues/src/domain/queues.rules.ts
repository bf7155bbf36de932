import type { Category, QueueSettings } from '@tracker/contracts';
import type { QueueRecord } from './model';

/** The statuses of a new queue are the contract's. */
export { STANDARD_STATUSES } from '@tracker/contracts';

/** Queue keys are stored upper-case and compared that way. */
export const normalizeQueueKey = (key: string) => key.toUpperCase();

/** The settings that would really change; empty means nothing to do. */
export function queueSettingsChanges(queue: Pick<QueueRecord, 'name' | 'description'>, settings: QueueSettings): QueueSettings {
  const changes: QueueSettings = {};
  if (settings.name !== undefined && settings.name !== queue.name) changes.name = settings.name;
  if (settings.description !== undefined && settings.description !== queue.description) changes.description = settings.description;
  return changes;
}

/** Where a new issue starts: the queue's first `open` status. */
export function initialStatus<S extends { category: Category; position: number }>(statuses: readonly S[]): S | undefined {
  return [...statuses].sort((a, b) => a.position - b.position).find((s) => s.category === 'open');
}
