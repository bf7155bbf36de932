import { z } from 'zod';
import { SnapshotCommentsPage, SnapshotIssuesPage, SnapshotQueuesPage } from '@tracker/contracts';
import { UpstreamUnavailableError, type InternalClient } from '@tracker/kit';
import type { IssuesSnapshot } from '../domain/ports';

/**
 * GET /internal/snapshot/{queues,issues,comments} on the issues service, each page checked
 * against its schema in libs/contracts (snapshot.ts). Anything but a valid
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
