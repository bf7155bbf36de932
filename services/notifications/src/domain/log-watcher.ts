import type { Logger } from '@tracker/kit';
import type { EventLog } from './ports';
import type { Position } from './model';

/**
 * One per replica: tells the live streams of a workspace that its log has grown, so that
 * only then each reads its page (with its caller's rights). Every `intervalMs` it reads the
 * newest position of every workspace some stream of this replica watches, in one query, and
 * none while no stream is open. Events recorded by any replica's consumer show up this way;
 * `wake` makes it look at once when this replica's consumer has just recorded some.
 */
export interface LogWatcher {
  /**
   * Calls `onNewer` with the workspace's newest position whenever it grows; answers the
   * newest known now (null before the first look) and the way to stop watching.
   */
  watch(workspaceId: number, onNewer: (newest: Position) => void): { known: Position | null; unwatch: () => void };
  wake(): void;
  stop(): void;
}

export function logWatcher(log: Pick<EventLog, 'newest'>, logger: Pick<Logger, 'warn'>, options: { intervalMs: number }): LogWatcher {
  const listeners = new Map<number, Set<(newest: Position) => void>>();
  const known = new Map<number, Position>();
  let timer: NodeJS.Timeout | null = null;
  let looking = false;
  let again = false;
  let stopped = false;

  const schedule = (ms: number) => {
    if (stopped || timer || listeners.size === 0) return;
    timer = setTimeout(look, ms);
    timer.unref();
  };

  async function look(): Promise<void> {
    timer = null;
    if (looking) return void (again = true);
    looking = true;
    try {
      const workspaceIds = [...listeners.keys()];
      if (workspaceIds.length > 0) {
        const newest = await log.newest(workspaceIds);
        for (const [workspaceId, position] of newest) {
          const before = known.get(workspaceId);
          if (!listeners.has(workspaceId) || (before !== undefined && position <= before)) continue;
          known.set(workspaceId, position);
          for (const listener of [...(listeners.get(workspaceId) ?? [])]) listener(position);
        }
      }
    } catch (err) {
      logger.warn({ err }, 'the live streams could not look at the event log; trying again');
    } finally {
      looking = false;
      const soon = again;
      again = false;
      schedule(soon ? 0 : options.intervalMs);
    }
  }

  return {
    watch(workspaceId, onNewer) {
      let set = listeners.get(workspaceId);
      if (!set) listeners.set(workspaceId, (set = new Set()));
      set.add(onNewer);
      schedule(options.intervalMs);
      return {
        known: known.get(workspaceId) ?? null,
        unwatch: () => {
          set.delete(onNewer);
          if (set.size > 0 || listeners.get(workspaceId) !== set) return;
          listeners.delete(workspaceId);
          known.delete(workspaceId);
          if (listeners.size === 0 && timer) {
            clearTimeout(timer);
            timer = null;
          }
        },
      };
    },
    wake() {
      if (listeners.size === 0 || stopped) return;
      if (looking) return void (again = true);
      if (timer) clearTimeout(timer);
      timer = null;
      schedule(0);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
