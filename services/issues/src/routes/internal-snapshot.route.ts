import type { Router } from 'express';
import { SnapshotPage } from '@tracker/contracts';
import { invalid, fieldErrors } from '@tracker/kit';
import type { IssuesDeps } from '../domain/deps';
import { commentsSnapshot, issuesSnapshot, queuesSnapshot } from '../domain/snapshot.use-case';
import { commentsSnapshotJson, issuesSnapshotJson, queuesSnapshotJson } from './json';

/** Service-to-service only (signed service principal): the statistics replica's rebuild source. */
export function internalSnapshotRoutes(router: Router, deps: IssuesDeps): void {
  const pageOf = (query: unknown) => {
    const page = SnapshotPage.safeParse(query);
    if (!page.success) throw invalid(fieldErrors(page.error), 'The query parameters are not valid.');
    return { afterId: page.data.after_id, limit: page.data.limit };
  };

  router.get('/internal/snapshot/queues', async (req, res) => {
    res.json(queuesSnapshotJson(await queuesSnapshot(deps, pageOf(req.query))));
  });

  router.get('/internal/snapshot/issues', async (req, res) => {
    res.json(issuesSnapshotJson(await issuesSnapshot(deps, pageOf(req.query))));
  });

  router.get('/internal/snapshot/comments', async (req, res) => {
    res.json(commentsSnapshotJson(await commentsSnapshot(deps, pageOf(req.query))));
  });
}
