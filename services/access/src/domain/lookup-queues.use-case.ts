import type { AccessDeps } from './deps';

/**
 * Internal: which ids are queues of the workspace. The statistics service asks for the
 * queues its replica has not seen yet (their queue.created still on the way); queues are
 * registered here before they exist, so the answer is current at once.
 */
export function lookupQueues(deps: Pick<AccessDeps, 'store'>, input: { workspaceId: number; queueIds: number[] }): Promise<number[]> {
  return deps.store.queues.idsInWorkspace(input.workspaceId, [...new Set(input.queueIds)]);
}
