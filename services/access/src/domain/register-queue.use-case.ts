import { accessErrors } from './access.errors';
import type { AccessDeps } from './deps';
import type { QueueRef } from './permissions.model';

/**
 * Internal: the issues service registers each queue before its creating transaction
 * commits. Idempotent: the issues service may retry a registration.
 */
export async function registerQueue(deps: Pick<AccessDeps, 'store'>, queue: QueueRef): Promise<void> {
  const existing = await deps.store.queues.find(queue.id);
  if (existing && existing.workspaceId !== queue.workspaceId) throw accessErrors.queueRegisteredElsewhere(queue.id);
  if (!existing) await deps.store.queues.register(queue);
}
