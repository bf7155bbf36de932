import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { SignInThrottle } from '../domain/ports';

/** Failures are counted in fixed windows of this length: a refusal lasts at most this long. */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

const windowOf = (nowMs: number) => {
  const seconds = Math.floor(nowMs / 1000);
  return { id: Math.floor(seconds / SIGN_IN_WINDOW_SECONDS), retryAfterSeconds: SIGN_IN_WINDOW_SECONDS - (seconds % SIGN_IN_WINDOW_SECONDS) };
};

/** The email's key holds a digest, not the address: Redis keys stay bounded and carry no one's email. */
const emailKey = (email: string, windowId: number) => `signin:e:${createHash('sha256').update(email).digest('base64url').slice(0, 22)}:${windowId}`;
const clientKey = (client: string, windowId: number) => `signin:c:${client.slice(0, 64)}:${windowId}`;

/**
 * Failed sign-ins per email and per client address in Redis, shared by every replica.
 * Redis away: nothing is counted and nothing refused (sign-in keeps working, unthrottled,
 * as the gateway's limits do), and the caller is told nothing of it.
 */
export function signInThrottle(redis: Redis, clock: () => Date = () => new Date()): SignInThrottle {
  return {
    async failures(email, client) {
      const window = windowOf(clock().getTime());
      try {
        const [byEmail, byClient] = await redis.mget(emailKey(email, window.id), clientKey(client, window.id));
        return { email: Number(byEmail ?? 0), client: Number(byClient ?? 0), retryAfterSeconds: window.retryAfterSeconds };
      } catch {
        return { email: 0, client: 0, retryAfterSeconds: window.retryAfterSeconds };
      }
    },

    async recordFailure(email, client) {
      const window = windowOf(clock().getTime());
      const keys = [emailKey(email, window.id), clientKey(client, window.id)];
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.incr(key).expire(key, SIGN_IN_WINDOW_SECONDS + 1, 'NX');
      await pipeline.exec().catch(() => undefined);
    },
  };
}
