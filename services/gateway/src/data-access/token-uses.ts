import type { Logger } from '@tracker/kit';
import type { TokenUses, TokenUseSink } from '../domain/ports';

/** Tokens remembered between flushes at most; past it the batch is sent at once. */
const MAX_PENDING = 10_000;

/**
 * When each token was last used, kept in this process and sent to the access service
 * every `flushMs` (and when MAX_PENDING tokens wait, and at shutdown) in one call: a
 * token's `last_used_at` is at most that late, and a request costs a Map write, not a
 * database write. A batch that fails is merged back and sent with the next.
 */
export function tokenUses(sink: TokenUseSink, flushMs: number, log: Logger): TokenUses & { flush(): Promise<void>; stop(): Promise<void> } {
  let pending = new Map<number, number>();
  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    flushing = flushing.then(async () => {
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Map();
      try {
        await sink.recordUses([...batch].map(([tokenId, at]) => ({ tokenId, at: new Date(at) })));
      } catch (err) {
        log.warn({ err: (err as Error).message, tokens: batch.size }, 'token uses not recorded yet; sent again with the next batch');
        for (const [tokenId, at] of batch) if (pending.size < MAX_PENDING && !((pending.get(tokenId) ?? 0) > at)) pending.set(tokenId, at);
      }
    });
    return flushing;
  };
  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();
  return {
    used(tokenId) {
      pending.set(tokenId, Date.now());
      if (pending.size >= MAX_PENDING) void flush();
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
