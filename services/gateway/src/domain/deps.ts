import type { AuthStore, BlockedClients, InFlight, TokenResolver, TokenUses } from './ports';


/** What the authentication use case is given; wired once in app.ts (and in tests). */
export interface GatewayDeps {
  store: AuthStore;
  access: TokenResolver;
  blockedClients: BlockedClients;
  tokenUses: TokenUses;
  /** Resolutions by the access service of tokens from blocked clients, in flight at once. */
  blockedClientResolves: InFlight;
  /** Per minute; 0 turns a limit off. */
  limits: { requestsPerToken: number; failuresPerClient: number };
  clock: () => Date;
}
