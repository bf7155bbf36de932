/**
 * The signed-in page's bearer token for /api/v1: asked of its session (POST /auth/token,
 * good for `expires_in` seconds, 15 minutes), held in memory only (never localStorage,
 * sessionStorage or the URL), and renewed before it ends, at 80% of its life, so a page
 * left open keeps working. A renewal that fails for the network is tried again while the
 * token held is still good; one refused (401: the session ended, signed out elsewhere,
 * password changed) ends the page's sign-in.
 */
export interface IssuedToken {
  access_token: string;
  expires_in: number;
}

/** The session is over: sign in again. */
export class SignedOutError extends Error {
  constructor() {
    super('The session has ended.');
    this.name = 'SignedOutError';
  }
}

/** Waits, as the page's code schedules them (the live stream's reader takes these too). */
export interface Timers {
  setTimeout: (run: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export interface Clock extends Timers {
  now: () => number;
}

export const browserClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => globalThis.setTimeout(run, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as number),
};

/** Renewed at this share of a token's life. */
export const RENEW_AT = 0.8;
/** A renewal that failed for the network is tried again after this long (while the token held is good). */
export const RETRY_MS = 5_000;
/** A token this close to its end is not handed out: a request made with it could arrive late. */
export const MARGIN_MS = 5_000;

export class SessionTokens {
  private token: { value: string; expiresAt: number } | undefined;
  private timer: unknown;
  private pending: Promise<string> | undefined;
  private stopped = false;

  /**
   * @param issue asks the session for a new token; throws SignedOutError when the session refuses (401).
   * @param onSignedOut called once when a renewal finds the session over.
   */
  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    private readonly onSignedOut: () => void,
    private readonly clock: Clock = browserClock,
  ) {}

  /** A token good for the next request: the one held, or a new one. */
  current(): Promise<string> {
    if (this.token && this.clock.now() < this.token.expiresAt - MARGIN_MS) return Promise.resolve(this.token.value);
    return this.renew();
  }

  /** A new token now (one request however many ask at once); e.g. after /api/v1 refused the one held. */
  renew(): Promise<string> {
    if (this.stopped) return Promise.reject(new SignedOutError());
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forgets the token and stops renewing (signing out, or the page's session ended). */
  stop(): void {
    this.stopped = true;
    this.token = undefined;
    this.clock.clearTimeout(this.timer);
  }

  /** When the token held ends (ms since the epoch), for tests and diagnostics. */
  expiresAt(): number | undefined {
    return this.token?.expiresAt;
  }

  private async fetchToken(): Promise<string> {
    try {
      const issued = await this.issue();
      if (this.stopped) throw new SignedOutError();
      const lifeMs = issued.expires_in * 1000;
      this.token = { value: issued.access_token, expiresAt: this.clock.now() + lifeMs };
      this.schedule(lifeMs * RENEW_AT);
      return issued.access_token;
    } catch (error) {
      if (error instanceof SignedOutError) {
        if (!this.stopped) {
          this.stop();
          this.onSignedOut();
        }
      } else if (this.token && this.clock.now() + RETRY_MS < this.token.expiresAt) {
        this.schedule(RETRY_MS);
      }
      throw error;
    }
  }

  private schedule(ms: number): void {
    this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      // A failed renewal schedules its own retry; nobody awaits this one.
      this.renew().catch(() => undefined);
    }, ms);
  }
}
