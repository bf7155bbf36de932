import type { AuthCache, Passwords, SignInThrottle, Store } from './ports';


/** What the use cases of this service are given; wired once in app.ts (and in tests). */
export interface AccessDeps {
  store: Store;
  cache: AuthCache;
  passwords: Passwords;
  throttle: SignInThrottle;
  /** Sign-ins by outcome (signed_in, invalid_credentials, throttled). */
  signIns: { inc(labels: { outcome: 'signed_in' | 'invalid_credentials' | 'throttled' }): void };
  /** What people's accounts are configured with (config.ts). */
  accounts: { publicUrl: string; signInFailures: { perEmail: number; perClient: number } };
  /** How long a principal may be cached at most. */
  authCacheTtlSeconds: number;
  clock: () => Date;
}
