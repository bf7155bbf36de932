import { ACCOUNT_LIMITS } from '@tracker/contracts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The form an email is unique and matched in: case does not make another person. */
export const emailKeyOf = (email: string) => email.trim().toLowerCase();

/** A session's times, as stored. */
export interface SessionTimes {
  lastSeenAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
}

/** When a session ends if nothing renews it: 12 hours after it was last seen, and never past its absolute end. */
export const sessionDeadline = (session: SessionTimes): Date =>
  new Date(Math.min(session.expiresAt.getTime(), session.lastSeenAt.getTime() + ACCOUNT_LIMITS.sessionIdleHours * HOUR_MS));

export const isSessionLive = (session: SessionTimes, now: Date): boolean => session.endedAt === null && sessionDeadline(session) > now;

/** A new session's absolute end. */
export const sessionExpiry = (now: Date) => new Date(now.getTime() + ACCOUNT_LIMITS.sessionDays * DAY_MS);

export const setupLinkExpiry = (now: Date) => new Date(now.getTime() + ACCOUNT_LIMITS.setupLinkHours * HOUR_MS);

/** A personal token's end: `days` from now, or none. */
export const tokenExpiry = (now: Date, days: number | null) => (days === null ? null : new Date(now.getTime() + days * DAY_MS));

/** The link a person opens to set their password: the code rides in the fragment, which no server or log sees. */
export const setupUrlOf = (publicUrl: string, code: string) => `${publicUrl.replace(/\/+$/, '')}/setup#code=${code}`;

/** What the browser says of where a request to /auth comes from (its Origin and Sec-Fetch-Site headers, and the Host it was sent to). */
export interface RequestSite {
  origin: string | undefined;
  fetchSite: string | undefined;
  host: string | undefined;
}

/**
 * Whether a request to /auth comes from another site: a form or script of another page
 * posting with the person's cookie. A browser says so in Sec-Fetch-Site, or in an Origin
 * that is neither the public address nor the address the request was sent to. Tools
 * (curl, scripts) send neither header and pass: they hold no one's cookie.
 */
export function isCrossSite(site: RequestSite, publicUrl: string): boolean {
  if (site.fetchSite !== undefined && site.fetchSite !== 'same-origin' && site.fetchSite !== 'none') return true;
  if (site.origin === undefined) return false;
  let origin: URL;
  try {
    origin = new URL(site.origin);
  } catch {
    return true;
  }
  if (origin.origin === new URL(publicUrl).origin) return false;
  return site.host === undefined || origin.host !== site.host.toLowerCase();
}
