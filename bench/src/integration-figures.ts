/**
 * B12's pure figures (unit-tested; no I/O here): which write an event is, the feed's cursor
 * for a position, each write's wait until it was seen, and a burst's arrival rate.
 */

/**
 * What a public event (a webhook's body, a feed item) says about the write that made it:
 * `issue:<key>:<version>` for `issue.updated` (a version names one update of the issue),
 * `comment:<id>` for `comment.added`; null for anything else.
 */
export function eventMatch(event: unknown): string | null {
  const e = event as { type?: unknown; data?: { issue?: { key?: unknown; version?: unknown }; comment?: { id?: unknown } } } | null;
  if (!e || typeof e !== 'object') return null;
  if (e.type === 'issue.updated' && typeof e.data?.issue?.key === 'string' && typeof e.data.issue.version === 'number') return issueMatch(e.data.issue.key, e.data.issue.version);
  if (e.type === 'comment.added' && typeof e.data?.comment?.id === 'number') return commentMatch(e.data.comment.id);
  return null;
}

export const issueMatch = (key: string, version: number) => `issue:${key}:${version}`;
export const commentMatch = (id: number) => `comment:${id}`;

/**
 * The feed's cursor after `position` (the notifications service's `cursorOf`: `c1_` and the
 * base64url of the decimal digits). Opaque to integrations, which only send back what they
 * were given; the bench starts its follower at the newest event recorded instead of reading
 * the whole log (earlier scenarios' writes) first, as an integration that has caught up would.
 */
export const cursorAfter = (position: bigint | number | string) => `c1_${Buffer.from(String(position), 'utf8').toString('base64url')}`;

/**
 * Each write's wait, ms: from its 2xx (`answered`, by match) to when its event was seen
 * (`seen`, the first time, by match); and how many writes were never seen. Events of no
 * write of the run (another writer's) are ignored.
 */
export function waits(answered: ReadonlyMap<string, number>, seen: ReadonlyMap<string, number>): { ms: number[]; lost: number } {
  const ms: number[] = [];
  let lost = 0;
  for (const [match, at] of answered) {
    const when = seen.get(match);
    if (when === undefined) lost++;
    else ms.push(when - at);
  }
  return { ms, lost };
}

/** Arrivals per second from the first to the last of `times` (ms): n - 1 intervals over the span; NaN under two. */
export function arrivalRate(times: readonly number[]): number {
  if (times.length < 2) return NaN;
  let first = Infinity;
  let last = -Infinity;
  for (const t of times) {
    if (t < first) first = t;
    if (t > last) last = t;
  }
  return last > first ? (times.length - 1) / ((last - first) / 1000) : NaN;
}
