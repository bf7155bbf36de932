import { AppError } from '@tracker/kit';
import { QueueOwnedElsewhereError } from '../data-access/permissions.repository';
import type { AccessDeps } from './deps';
import type { QueueRef } from './permissions.model';

/** Internal: the issues service registers each queue before its creating transaction commits. */
export async function registerQueue(deps: Pick<AccessDeps, 'permissions'>, queue: QueueRef): Promise<void> {
  try {
    await deps.permissions.registerQueue(queue);
  } catch (err) {
    if (err instanceof QueueOwnedElsewhereError) {
      throw new AppError('validation_failed', `Queue ${queue.id} is registered to another workspace.`, {
        errors: [{ path: 'queue_id', message: 'registered to another workspace' }],
      });
    }
    throw err;
  }
}
