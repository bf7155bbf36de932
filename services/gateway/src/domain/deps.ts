import type { UserPrincipal } from '@tracker/kit';

/**
 * What the cache says of a token: its principal; `unknown-token` when no token has this
 * hash (the access service records that, and it stays true); `ask-access` when nothing
 * trustworthy is known (not cached, Redis away, or the cache not fresh).
 */
export type CachedToken = UserPrincipal | 'unknown-token' | 'ask-access';

export interface CacheLookup {
  token: CachedToken;
  /** Requests of this token in the current window, or null when Redis did not answer. */
  requests: number | null;
  /** Failed authentications of this client in the current window (0 when Redis did not answer). */
  failures: number;
}

/** Redis: the signed token cache and the per-window counters (data-access/auth-store.ts). */
export interface AuthStore {
  /** One round trip: the cached token, the client's failed authentications, and (when `countRequest`) this request counted against the token. */
  lookup(tokenHash: string, windowId: number, countRequest: boolean, client: string): Promise<CacheLookup>;
  /** Counts a failed authentication against the client; best effort. */
  recordFailure(client: string, windowId: number): Promise<void>;
}

/** The access service (data-access/access-client.ts). Throws UpstreamUnavailableError when it cannot answer. */
export interface TokenResolver {
  /** Who owns a token hash: its principal, or null for an unknown or revoked token or a deactivated owner. */
  resolve(tokenHash: string, requestId: string): Promise<UserPrincipal | null>;
}

/** Clients over the failed-authentication limit, remembered in this process (data-access/blocked-clients.ts). */
export interface BlockedClients {
  block(client: string, windowId: number): void;
  isBlocked(client: string, windowId: number): boolean;
}

/** What the authentication use case is given; wired once in app.ts (and in tests). */
export interface GatewayDeps {
  store: AuthStore;
  access: TokenResolver;
  blockedClients: BlockedClients;
  /** Per minute; 0 turns a limit off. */
  limits: { requestsPerToken: number; failuresPerClient: number };
  clock: () => Date;
}
