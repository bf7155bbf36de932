import { backoffDelay, type Logger } from '@tracker/kit';
import type { IssuesSnapshot, RebuildLock, ReplicaStore } from '../domain/ports';
import { rebuildReplica, type RebuildResult } from '../domain/rebuild-replica.use-case';

export interface ReplicaBuilderDeps {
  replica: ReplicaStore;
  snapshot: IssuesSnapshot;
  lock: RebuildLock;
  logger: Logger;
  clock?: () => Date;
}

/**
 * Builds the replica from the issues snapshot, holding the rebuild lock. Waits for
 * the lock (another instance or the command may be rebuilding) unless `wait` is false,
 * in which case it returns null when the lock is taken.
 */
export async function rebuildWithLock(
  deps: ReplicaBuilderDeps,
  options: { reset: boolean; pageSize: number; wait: boolean; shouldStop?: () => boolean; pageAttempts?: number; retryDelayMs?: number },
): Promise<RebuildResult | null> {
  if (options.wait) await deps.lock.acquire();
  else if (!(await deps.lock.tryAcquire())) return null;
  try {
    return await rebuildReplica(
      { replica: deps.replica, snapshot: deps.snapshot, clock: deps.clock ?? (() => new Date()), log: deps.logger },
      { reset: options.reset, pageSize: options.pageSize, shouldStop: options.shouldStop, pageAttempts: options.pageAttempts, retryDelayMs: options.retryDelayMs },
    );
  } finally {
    await deps.lock.release();
  }
}

/**
 * Watches the replica for as long as the service runs: whenever it is not built (an
 * empty replica at start-up, or a rebuild from scratch that died halfway), build it,
 * without reset: rows already written stay and the revision rule sorts them out. If
 * another process holds the rebuild lock, look again later: it may die before it
 * finishes. The HTTP API answers 503 meanwhile.
 */
export function keepReplicaBuilt(deps: ReplicaBuilderDeps, options: { pageSize: number; pollMs?: number; retryDelayMs?: number }) {
  const pollMs = options.pollMs ?? 5000;
  let stopping = false;
  let wake: (() => void) | null = null;
  let markBuilt!: () => void;
  const built = new Promise<void>((resolve) => (markBuilt = resolve));
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => ((wake = null), resolve()), ms);
      wake = () => (clearTimeout(timer), (wake = null), resolve());
    });
  const loop = (async () => {
    let failures = 0;
    while (!stopping) {
      try {
        if (!(await deps.replica.isBuilt())) {
          deps.logger.info({}, 'replica not built: rebuilding it from the issues snapshot');
          const result = await rebuildWithLock(deps, { reset: false, pageSize: options.pageSize, wait: false, shouldStop: () => stopping, retryDelayMs: options.retryDelayMs });
          if (result === null) deps.logger.info({}, 'another process is rebuilding the replica; checking again later');
        }
        if (await deps.replica.isBuilt()) markBuilt();
        failures = 0;
      } catch (err) {
        failures += 1;
        deps.logger.warn({ err: err instanceof Error ? err.message : String(err), failures }, 'replica rebuild failed; retrying');
      }
      const delay = failures > 0 ? backoffDelay(failures, { baseMs: options.retryDelayMs ?? 1000, maxMs: 30_000 }) : pollMs;
      if (!stopping) await sleep(delay);
    }
  })();
  return {
    /** Resolves once the replica has been seen built (or the watcher was stopped). */
    built: Promise.race([built, loop]),
    stop: async () => {
      stopping = true;
      wake?.();
      await loop;
    },
  };
}
