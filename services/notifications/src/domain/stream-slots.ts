/**
 * The live streams open on this replica: at most `maxOpen` in all and `perUser` for one
 * user, so a client that reconnects in a loop or a tab left open a hundred times cannot
 * take every socket. Each stream holds a slot from before its first byte to its end; the
 * slot's signal aborts when the replica ends every stream (shutdown). In memory: the
 * bounds are per replica (a user may hold `perUser` on each replica).
 */
export interface StreamSlot {
  /** Aborted when the replica ends its streams (endAll). */
  signal: AbortSignal;
  release: () => void;
}

export type SlotRefusal = 'replica_full' | 'user_full' | 'closing';

export interface StreamSlots {
  take(userKey: string): StreamSlot | SlotRefusal;
  /** Streams open now. */
  open(): number;
  /** Ends every stream and refuses new ones (the replica is draining). */
  endAll(): void;
}

export function streamSlots(limits: { maxOpen: number; perUser: number }): StreamSlots {
  const byUser = new Map<string, number>();
  const live = new Set<AbortController>();
  let closing = false;
  return {
    take(userKey) {
      if (closing) return 'closing';
      if (live.size >= limits.maxOpen) return 'replica_full';
      const held = byUser.get(userKey) ?? 0;
      if (held >= limits.perUser) return 'user_full';
      byUser.set(userKey, held + 1);
      const controller = new AbortController();
      live.add(controller);
      let released = false;
      return {
        signal: controller.signal,
        release: () => {
          if (released) return;
          released = true;
          live.delete(controller);
          const left = (byUser.get(userKey) ?? 1) - 1;
          if (left > 0) byUser.set(userKey, left);
          else byUser.delete(userKey);
        },
      };
    },
    open: () => live.size,
    endAll() {
      closing = true;
      for (const controller of live) controller.abort();
    },
  };
}
