/**
 * B10 and B2's session token: what a person's sign-in hands the bench (the setup link's
 * code, the session cookie), and the floor of a sign-in, `@node-rs/argon2`'s verify alone.
 */
import { verify } from '@node-rs/argon2';
import { SESSION_COOKIE } from '@tracker/contracts';
import { percentile } from './stats';

/** The code of a setup link, `{PUBLIC_URL}/setup#code=<code>` (it rides in the fragment). */
export function setupCodeOf(setupUrl: string): string {
  const code = new URLSearchParams(new URL(setupUrl).hash.slice(1)).get('code');
  if (!code) throw new Error(`no #code= in the setup link ${setupUrl}`);
  return code;
}

/**
 * The session cookie a sign-in (or setup) answer sets, as a Cookie header sends it back
 * (`trk_session=<id>`), from its Set-Cookie headers; an emptied cookie (a sign-out's) is none.
 */
export function sessionCookieOf(setCookies: readonly string[]): string {
  for (const header of setCookies) {
    const [pair] = header.split(';');
    const at = pair!.indexOf('=');
    if (at > 0 && pair!.slice(0, at).trim() === SESSION_COOKIE && pair!.slice(at + 1).trim() !== '') return `${SESSION_COOKIE}=${pair!.slice(at + 1).trim()}`;
  }
  throw new Error(`no ${SESSION_COOKIE} cookie set (Set-Cookie: ${JSON.stringify(setCookies)})`);
}

/** CPU ms per operation from a `process.cpuUsage()` difference (µs of user and system time). */
export function cpuMsPer(usage: { user: number; system: number }, operations: number): number {
  return (usage.user + usage.system) / 1000 / Math.max(1, operations);
}

export interface VerifyFigures {
  /** CPU ms per verify, the process's every thread (the addon's included). */
  cpuMs: number;
  /** Verifies finished per second of the run (as the load generator counts requests: finished / duration). */
  perSecond: number;
  p50: number;
  p99: number;
  count: number;
}

/**
 * `@node-rs/argon2`'s verify of `hash` with its right `password` (a sign-in's work when it
 * succeeds), `concurrency` at a time for `seconds`, in this process: the addon runs each
 * verify on one of libuv's threads, and process.cpuUsage counts every thread of the
 * process. Nothing else runs here meanwhile (no load, no /proc sampling).
 */
export async function verifyAlone(hash: string, password: string, concurrency: number, seconds: number): Promise<VerifyFigures> {
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        if (!(await verify(hash, password))) throw new Error('the password does not verify against its hash');
        times.push(performance.now() - started);
      }
    }),
  );
  const usage = process.cpuUsage(before);
  return { cpuMs: cpuMsPer(usage, times.length), perSecond: times.length / seconds, p50: percentile(times, 50), p99: percentile(times, 99), count: times.length };
}
