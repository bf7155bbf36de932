import type { UserPrincipal } from '@tracker/kit';

/**
 * The ports of the authentication use case: what it needs from Redis, the access service and
 * this process's memory, declared here so the domain depends on no implementation;
 * src/data-access implements them.
 */

/**
 * What the cache says of a token: its principal; `unknown-token` when no token has this
 * hash (the access service records that, and it stays true); `ask-access` when nothing
 * trustworthy is known (not cached, Redis away, or the cache not fresh).
 */
export type CachedToken = UserPrincipal | 'unknown-token' | 'ask-access';

export interface CacheLookup {
  token: CachedToken;
  /** Requests of this token in the current window, this one included; null when the cache holds no entry for the token (nothing counted) or Redis did not answer. */
  requests: number | null;
  /** Failed authentications of this client in the current window (0 when Redis did not answer). */
  failures: number;
}

/** Redis: the signed token cache and the per-window counters (data-access/auth-store.ts). */
export interface AuthStore {
  /** One round trip: the cached token, the client's failed authentications, and (when `countRequest` and the cache holds an entry for the token) this request counted against the token. */
  lookup(tokenHash: string, windowId: number, countRequest: boolean, client: string): Promise<CacheLookup>;
  /** Counts a request against a token the lookup did not count (resolved by the access service): its requests in the window, or null when Redis did not answer. */
  countRequest(tokenHash: string, windowId: number): Promise<number | null>;
  /** Counts a failed authentication against the client; best effort. */
  recordFailure(client: string, windowId: number): Promise<void>;
}

/** The access service (data-access/access-client.ts). Throws UpstreamUnavailableError when it cannot answer. */
export interface TokenResolver {
  /** Who owns a token hash: its principal; null for an unknown or revoked token or a deactivated owner; `expired` for a token past its end (or its session's). */
  resolve(tokenHash: string, requestId: string): Promise<UserPrincipal | null | 'expired'>;
}

/** Where the uses of tokens go, batched (the access service's POST /internal/tokens/used). */
export interface TokenUseSink {
  recordUses(uses: Array<{ tokenId: number; at: Date }>): Promise<void>;
}

/** Notes each request's token, so `last_used_at` is kept without a write per request (data-access/token-uses.ts). */
export interface TokenUses {
  used(tokenId: number): void;
}

/** Clients over the failed-authentication limit, remembered in this process (data-access/blocked-clients.ts). */
export interface BlockedClients {
  block(client: string, windowId: number): void;
  isBlocked(client: string, windowId: number): boolean;
}

/** At most a fixed number of something at once, counted in this process (data-access/in-flight.ts). */
export interface InFlight {
  /** Takes a place if one is free. */
  tryTake(): boolean;
  release(): void;
}
