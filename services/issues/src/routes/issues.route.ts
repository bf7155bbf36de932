import type { Router } from 'express';
import { CommentCreate, Filters, IssueCreate, IssueUpdate, ListPage, SEARCH_TRUNCATED_HEADER, WorklogCreate } from '@tracker/contracts';
import { parseBody } from '@tracker/kit';
import { addComment } from '../domain/add-comment.use-case';
import { addWorklog } from '../domain/add-worklog.use-case';
import { createIssue } from '../domain/create-issue.use-case';
import type { IssuesDeps } from '../domain/deps';
import { getIssue, listIssueItems } from '../domain/get-issue.use-case';
import { ISSUE_LISTS } from '../domain/model';
import { searchIssues } from '../domain/search-issues.use-case';
import { updateIssue } from '../domain/update-issue.use-case';
import { commentJson, contextOf, issueDetailsJson, issueJson, issueSummaryJson, listPageJson, worklogJson } from './json';
import { parseQuery } from './query';

/** Issue keys in paths are any string: a malformed key names no issue and answers 404. */
export function issuesRoutes(router: Router, deps: IssuesDeps): void {
  router.post('/api/v1/issues/search', async (req, res) => {
    const filters = parseBody(Filters, req.body);
    const { issues, truncated } = await searchIssues(deps, contextOf(res), filters);
    res.setHeader(SEARCH_TRUNCATED_HEADER, String(truncated));
    res.json(issues.map(issueSummaryJson));
  });

  router.post('/api/v1/issues', async (req, res) => {
    const input = parseBody(IssueCreate, req.body);
    res.status(201).json(issueJson(await createIssue(deps, contextOf(res), input)));
  });

  router.get('/api/v1/issues/:key', async (req, res) => {
    res.json(issueDetailsJson(await getIssue(deps, contextOf(res), req.params.key)));
  });

  // GET /issues/{key}/comments, /worklogs, /history, /links, /subtasks: pages of what the read embeds the newest of.
  for (const list of ISSUE_LISTS) {
    router.get(`/api/v1/issues/:key/${list}`, async (req, res) => {
      const page = parseQuery(ListPage, req.query as Record<string, unknown>);
      res.json(listPageJson(list, await listIssueItems(deps, contextOf(res), req.params.key, list, page)));
    });
  }

  router.patch('/api/v1/issues/:key', async (req, res) => {
    const update = parseBody(IssueUpdate, req.body);
    res.json(issueJson(await updateIssue(deps, contextOf(res), req.params.key, update)));
  });

  router.post('/api/v1/issues/:key/comments', async (req, res) => {
    const input = parseBody(CommentCreate, req.body);
    res.status(201).json(commentJson(await addComment(deps, contextOf(res), req.params.key, input)));
  });

  router.post('/api/v1/issues/:key/worklogs', async (req, res) => {
    const input = parseBody(WorklogCreate, req.body);
    res.status(201).json(worklogJson(await addWorklog(deps, contextOf(res), req.params.key, input)));
  });
}
