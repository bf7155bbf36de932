/**
 * Memory of the tickets a service has accepted (principal.ts), so each is accepted once.
 * A ticket id needs remembering only until the ticket expires.
 */
export interface SeenTickets {
  /** True the first time `id` is offered before `expiresAt` (ms), false on every repeat. */
  firstSight(audience: string, id: string, expiresAt: number): Promise<boolean>;
}

/** Bounded memory of this process: what a service uses when it has no shared store, and under one. */
export function inProcessSeenTickets(maxEntries = 200_000): SeenTickets & { has(audience: string, id: string): boolean; remember(audience: string, id: string, expiresAt: number): void } {
  const seen = new Map<string, number>();
  const sweep = (now: number) => {
    for (const [key, expiresAt] of seen) {
      if (expiresAt <= now || seen.size > maxEntries) seen.delete(key);
      else break; // insertion order is nearly expiry order: stop at the first live one
    }
  };
  const api = {
    has: (audience: string, id: string) => (seen.get(`${audience}:${id}`) ?? 0) > Date.now(),
    remember(audience: string, id: string, expiresAt: number) {
      sweep(Date.now());
      seen.set(`${audience}:${id}`, expiresAt);
    },
    async firstSight(audience: string, id: string, expiresAt: number) {
      if (api.has(audience, id)) return false;
      api.remember(audience, id, expiresAt);
      return true;
    },
  };
  return api;
}
