import type { Router } from 'express';
import {
  CommentCreate,
  Filters,
  IssueCreate,
  IssueUpdate,
  LEGACY_SEARCH_TRUNCATED_HEADER,
  ListPage,
  SEARCH_TOTAL_HEADER,
  SEARCH_TRUNCATED_HEADER,
  WorklogCreate,
} from '@tracker/contracts';
import { answerOnce, idempotencyKeyOf, parseBody, parseQuery, sendJsonText } from '@tracker/kit';
import { contextOf } from '@tracker/authz';
import { addComment } from '../domain/add-comment.use-case';
import { addWorklog } from '../domain/add-worklog.use-case';
import { createIssue } from '../domain/create-issue.use-case';
import type { IssuesDeps } from '../domain/deps';
import { getIssue, listIssueItems } from '../domain/get-issue.use-case';
import { ISSUE_LISTS } from '../domain/model';
import { searchIssues } from '../domain/search-issues.use-case';
import { updateIssue } from '../domain/update-issue.use-case';
import { clientHolds, ifMatchPrecondition, issueEtag } from './conditional';
import { commentJson, issueDetailsJson, issueJson, issueSummaryJson, listPageJson, worklogJson } from './json';
import { createIssueInput, updateIssueInput } from './requests';

/** Issue keys in paths are any string: a malformed key names no issue and answers 404. */
export function issuesRoutes(router: Router, deps: IssuesDeps): void {
  router.post('/api/v1/issues/search', async (req, res) => {
    const filters = parseBody(Filters, req.body);
    // A search writes nothing, so repeating it is safe: a key is checked, then has no effect.
    idempotencyKeyOf(req);
    const { issues, truncated } = await searchIssues(deps, contextOf(res), filters);
    res.setHeader(SEARCH_TOTAL_HEADER, String(issues.length));
    res.setHeader(SEARCH_TRUNCATED_HEADER, String(truncated));
    res.setHeader(LEGACY_SEARCH_TRUNCATED_HEADER, String(truncated));
    res.json(issues.map(issueSummaryJson));
  });

  router.post('/api/v1/issues', async (req, res) => {
    const input = createIssueInput(parseBody(IssueCreate, req.body));
    await answerOnce(req, res, deps.store.idempotentRequests, { status: 201, render: issueJson }, (once) => createIssue(deps, contextOf(res), input, once));
  });

  router.get('/api/v1/issues/:key', async (req, res) => {
    const issue = await getIssue(deps, contextOf(res), req.params.key);
    const answer = JSON.stringify(issueDetailsJson(issue));
    const etag = issueEtag(issue.version, answer);
    res.setHeader('ETag', etag);
    if (clientHolds(req.header('if-none-match'), etag)) return void res.status(304).end();
    sendJsonText(res, answer);
  });

  // GET /issues/{key}/comments, /worklogs, /history, /links, /subtasks: pages of what the read embeds the newest of.
  for (const list of ISSUE_LISTS) {
    router.get(`/api/v1/issues/:key/${list}`, async (req, res) => {
      const page = parseQuery(ListPage, req.query as Record<string, unknown>);
      res.json(listPageJson(list, await listIssueItems(deps, contextOf(res), req.params.key, list, { afterId: page.after_id, limit: page.limit })));
    });
  }

  router.patch('/api/v1/issues/:key', async (req, res) => {
    const update = updateIssueInput(parseBody(IssueUpdate, req.body));
    const issue = await updateIssue(deps, contextOf(res), req.params.key, update, ifMatchPrecondition(req.header('if-match')));
    const answer = JSON.stringify(issueJson(issue));
    res.setHeader('ETag', issueEtag(issue.version, answer));
    sendJsonText(res, answer);
  });

  router.post('/api/v1/issues/:key/comments', async (req, res) => {
    const input = parseBody(CommentCreate, req.body);
    await answerOnce(req, res, deps.store.idempotentRequests, { status: 201, render: commentJson }, (once) => addComment(deps, contextOf(res), req.params.key, input, once));
  });

  router.post('/api/v1/issues/:key/worklogs', async (req, res) => {
    const input = parseBody(WorklogCreate, req.body);
    await answerOnce(req, res, deps.store.idempotentRequests, { status: 201, render: worklogJson }, (once) => addWorklog(deps, contextOf(res), req.params.key, input, once));
  });
}
