import { SnapshotPage } from '@tracker/contracts';
import { sendJson, serviceCallerOf, startFakeUpstream } from '@tracker/testing';
import type { IssueStateData, QueueStateData } from '../src/domain/replica';

/**
 * A stand-in for the issues service's snapshot endpoints, exactly as
 * libs/contracts/src/snapshot.ts describes them:
 *   GET /internal/snapshot/queues?after_id=&limit= → { queues: [{ revision, queue }], next_after_id }
 *   GET /internal/snapshot/issues?after_id=&limit= → { issues: [{ revision, issue }], next_after_id }
 *   GET /internal/snapshot/comments?after_id=&limit= → { comments: [{ id, issue_id, body }], next_after_id }
 * ordered by id, `next_after_id` null on the last page; signed service principals only.
 * Tests hold each issue's comments beside it (`issues`); they are served as pages of their own.
 */
export interface FakeIssues {
  url: string;
  calls: string[];
  queues: Map<number, { revision: number; queue: QueueStateData }>;
  issues: Map<number, { revision: number; issue: IssueStateData; comments: Array<{ id: number; body: string }> }>;
  /** The next `n` snapshot calls answer 500. */
  failNext: (n: number) => void;
  /** Pause before each page is answered (lets events interleave with a rebuild). */
  setDelay: (ms: number) => void;
  close: () => Promise<void>;
}

export async function startFakeIssues(): Promise<FakeIssues> {
  const queues: FakeIssues['queues'] = new Map();
  const issues: FakeIssues['issues'] = new Map();
  const calls: string[] = [];
  let failures = 0;
  let delay = 0;

  function page<T>(rows: Map<number, T>, afterId: number, limit: number): { rows: T[]; next: number | null } {
    const ids = [...rows.keys()].filter((id) => id > afterId).sort((a, b) => a - b);
    const taken = ids.slice(0, limit);
    return { rows: taken.map((id) => rows.get(id)!), next: ids.length > limit ? taken[taken.length - 1]! : null };
  }

  const upstream = await startFakeUpstream(async (request, res) => {
    calls.push(request.url);
    const send = (status: number, json: unknown) => sendJson(res, status, json);
    if (serviceCallerOf(request, new Uint8Array(), 'issues') !== 'statistics') return send(401, { code: 'unauthorized' });
    if (delay) await new Promise((r) => setTimeout(r, delay));
    if (failures > 0) {
      failures -= 1;
      return send(500, { code: 'internal_error' });
    }
    const url = new URL(request.url, 'http://x');
    const query = SnapshotPage.safeParse(Object.fromEntries(url.searchParams));
    if (request.method !== 'GET' || !query.success) return send(422, { code: 'validation_failed' });
    const { after_id, limit } = query.data;
    if (url.pathname === '/internal/snapshot/queues') {
      const p = page(queues, after_id, limit);
      return send(200, { queues: p.rows, next_after_id: p.next });
    }
    if (url.pathname === '/internal/snapshot/issues') {
      const p = page(issues, after_id, limit);
      return send(200, { issues: p.rows.map(({ revision, issue }) => ({ revision, issue })), next_after_id: p.next });
    }
    if (url.pathname === '/internal/snapshot/comments') {
      const comments = new Map(
        [...issues.values()].flatMap(({ issue, comments: list }) => list.map((c) => [c.id, { id: c.id, issue_id: issue.id, body: c.body }] as const)),
      );
      const p = page(comments, after_id, limit);
      return send(200, { comments: p.rows, next_after_id: p.next });
    }
    send(404, { code: 'not_found' });
  });
  return {
    url: upstream.url,
    calls,
    queues,
    issues,
    failNext: (n) => {
      failures = n;
    },
    setDelay: (ms) => {
      delay = ms;
    },
    close: upstream.close,
  };
}
