export type Upstream = 'access' | 'issues' | 'statistics';

/**
 * Which service owns a public path (architecture.md). Queue permissions belong to
 * access although they sit under /queues, so they are matched first.
 */
const table: Array<[RegExp, Upstream]> = [
  [/^\/api\/v1\/me$/, 'access'],
  [/^\/api\/v1\/users(\/[^/]*)?$/, 'access'],
  [/^\/api\/v1\/queues\/[^/]+\/permissions(\/[^/]*)?$/, 'access'],
  [/^\/api\/v1\/queues(\/.*)?$/, 'issues'],
  [/^\/api\/v1\/statuses$/, 'issues'],
  [/^\/api\/v1\/issues(\/.*)?$/, 'issues'],
  [/^\/api\/v1\/statistics$/, 'statistics'],
  [/^\/api\/v1\/dashboards(\/[^/]*)?$/, 'statistics'],
];

export function upstreamFor(path: string): Upstream | null {
  for (const [pattern, upstream] of table) if (pattern.test(path)) return upstream;
  return null;
}
