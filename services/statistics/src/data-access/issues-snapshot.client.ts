import { z } from 'zod';
import { IssueState, QueueState } from '@tracker/events';
import { UpstreamUnavailableError, type InternalClient } from '@tracker/kit';
import type { IssuesSnapshot } from '../domain/ports';

const id = z.number().int().positive();

/**
 * The snapshot pages of the issues service, as libs/contracts/src/internal.ts describes
 * them. Kept here until the response schemas live in libs/contracts next to SnapshotPage.
 * Issue rows carry no comments: comments are pages of their own. (An issues service of
 * before that still sends `comments` in its rows; they are ignored, and its missing
 * comments endpoint fails the rebuild, which is retried until issues is upgraded.)
 */
export const SnapshotQueuesPage = z.object({
  queues: z.array(z.object({ revision: id, queue: QueueState })),
  next_after_id: id.nullable(),
});
export const SnapshotIssuesPage = z.object({
  issues: z.array(z.object({ revision: id, issue: IssueState })),
  next_after_id: id.nullable(),
});
export const SnapshotCommentsPage = z.object({
  comments: z.array(z.object({ id, issue_id: id, body: z.string() })),
  next_after_id: id.nullable(),
});

/**
 * GET /internal/snapshot/{queues,issues} on the issues service. Anything but a valid
 * 200 page is the service being unavailable: the rebuild retries, it never treats a
 * broken answer as an empty snapshot.
 */
export function issuesSnapshotClient(client: InternalClient): IssuesSnapshot {
  async function page<S extends z.ZodType>(what: 'queues' | 'issues' | 'comments', schema: S, afterId: number, limit: number): Promise<z.output<S>> {
    const path = `/internal/snapshot/${what}?after_id=${afterId}&limit=${limit}`;
    const res = await client.call('GET', path);
    const parsed = res.status === 200 ? schema.safeParse(res.body) : null;
    if (!parsed?.success) {
      throw new UpstreamUnavailableError(`issues answered ${res.status} to GET ${path}${parsed ? ': ' + parsed.error.message.slice(0, 300) : ''}`);
    }
    const next = (parsed.data as { next_after_id: number | null }).next_after_id;
    if (next !== null && next <= afterId) throw new UpstreamUnavailableError(`issues answered next_after_id ${next} after ${afterId} to GET ${path}`);
    return parsed.data;
  }

  return {
    async queues(afterId, limit) {
      const data = await page('queues', SnapshotQueuesPage, afterId, limit);
      return { rows: data.queues, nextAfterId: data.next_after_id };
    },
    async issues(afterId, limit) {
      const data = await page('issues', SnapshotIssuesPage, afterId, limit);
      return { rows: data.issues, nextAfterId: data.next_after_id };
    },
    async comments(afterId, limit) {
      const data = await page('comments', SnapshotCommentsPage, afterId, limit);
      return { rows: data.comments.map((c) => ({ id: c.id, issueId: c.issue_id, body: c.body })), nextAfterId: data.next_after_id };
    },
  };
}
