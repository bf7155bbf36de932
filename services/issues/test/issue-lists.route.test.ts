import { CommentPage, HistoryPage, IssueDetails, LinkPage, SubtaskPage, WorklogPage } from '@tracker/contracts';
import { INVALID_PAGE_QUERIES, VALID_PAGE_QUERIES } from '@tracker/testing';
import { problem, useIssuesService } from './harness';

/** GET /issues/{key}/{comments,worklogs,history,links,subtasks}: pages of what an issue read embeds the newest 50 of. */
const h = useIssuesService();

async function setup() {
  const { ws, queue, writer } = await h.writableQueue();
  return { ws, queue, writer };
}

const get = (as: any, path: string) => h.call('GET', path, { as });

/** Every item of a list, following next_after_id; the pages as they came. */
async function walk(as: any, path: string, limit: number) {
  const pages: any[] = [];
  let after = 0;
  for (;;) {
    const res = await get(as, `${path}?after_id=${after}&limit=${limit}`);
    expect(res.status).toBe(200);
    pages.push(res.body);
    if (res.body.next_after_id === null) break;
    after = res.body.next_after_id;
  }
  return { items: pages.flatMap((p) => p.items), pages };
}

describe('an issue read and its lists', () => {
  test('when an issue has 60 comments, then the read embeds the newest 50 oldest first with comments_total 60, and the list pages through all 60', async () => {
    const { queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id);
    for (let n = 1; n <= 60; n++) {
      expect((await h.call('POST', `/api/v1/issues/${issue.key}/comments`, { as: writer, body: { body: `comment ${n}` } })).status).toBe(201);
    }
    const read = await get(writer, `/api/v1/issues/${issue.key}`);
    expect(IssueDetails.parse(read.body)).toEqual(read.body);
    expect(read.body.comments.map((c: { body: string }) => c.body)).toEqual(Array.from({ length: 50 }, (_, i) => `comment ${i + 11}`));
    expect(read.body.comments_total).toBe(60);

    const { items, pages } = await walk(writer, `/api/v1/issues/${issue.key}/comments`, 25);
    expect(pages.map((p) => [p.items.length, p.total])).toEqual([
      [25, 60],
      [25, 60],
      [10, 60],
    ]);
    for (const page of pages) expect(CommentPage.parse(page)).toEqual(page);
    expect(items.map((c: { body: string }) => c.body)).toEqual(Array.from({ length: 60 }, (_, i) => `comment ${i + 1}`));
    expect(pages[0].next_after_id).toBe(items[24].id);
    // The newest 50 of the read are the last 50 of the list, field for field.
    expect(read.body.comments).toEqual(items.slice(10));
    // Without a query: the first page of 50.
    const first = await get(writer, `/api/v1/issues/${issue.key}/comments`);
    expect(first.body.items).toEqual(items.slice(0, 50));
    expect(first.body.next_after_id).toBe(items[49].id);
  });

  test('when worklogs and changes were added, then their lists page the same way, history with its truncation marks', async () => {
    const { queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id);
    for (const minutes of [10, 20, 30]) await h.call('POST', `/api/v1/issues/${issue.key}/worklogs`, { as: writer, body: { minutes } });
    for (const title of ['One', 'Two']) await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { title } });

    const worklogs = await walk(writer, `/api/v1/issues/${issue.key}/worklogs`, 2);
    expect(worklogs.items.map((w: { minutes: number }) => w.minutes)).toEqual([10, 20, 30]);
    for (const page of worklogs.pages) expect(WorklogPage.parse(page)).toEqual(page);

    const history = await walk(writer, `/api/v1/issues/${issue.key}/history`, 1);
    expect(history.pages).toHaveLength(3);
    for (const page of history.pages) expect(HistoryPage.parse(page)).toEqual(page);
    expect(history.items.map((e: any) => [e.field, e.from, e.to, e.from_truncated, e.to_truncated])).toEqual([
      ['created', null, null, false, false],
      ['title', 'An issue', 'One', false, false],
      ['title', 'One', 'Two', false, false],
    ]);
    const read = await get(writer, `/api/v1/issues/${issue.key}`);
    expect(read.body.history).toEqual(history.items);
    expect([read.body.worklogs_total, read.body.history_total]).toEqual([3, 3]);
  });

  test('when links and subtasks are in queues the caller cannot read, then neither the read, its totals nor the lists show them', async () => {
    const { ws, queue, writer } = await setup();
    const hidden = await h.queue(ws);
    const issue = await h.issue(writer, queue.id);
    const seen = await h.issue(writer, queue.id);
    const secret = await h.issue(ws.admin, hidden.id, { title: 'Secret' });
    await h.call('PATCH', `/api/v1/issues/${issue.key}`, { as: writer, body: { description: `see ${seen.key} and ${secret.key}` } });
    await h.issue(writer, queue.id, { parent_id: issue.id, title: 'Visible sub' });
    await h.issue(ws.admin, hidden.id, { parent_id: issue.id, title: 'Hidden sub' });

    const mine = await get(writer, `/api/v1/issues/${issue.key}`);
    expect(mine.body.links.map((l: { key: string }) => l.key)).toEqual([seen.key]);
    expect(mine.body.subtasks.map((s: { title: string }) => s.title)).toEqual(['Visible sub']);
    expect([mine.body.links_total, mine.body.subtasks_total]).toEqual([1, 1]);
    const links = await get(writer, `/api/v1/issues/${issue.key}/links`);
    expect(LinkPage.parse(links.body)).toEqual(links.body);
    expect(links.body).toEqual({ items: mine.body.links, total: 1, next_after_id: null });
    const subtasks = await get(writer, `/api/v1/issues/${issue.key}/subtasks`);
    expect(SubtaskPage.parse(subtasks.body)).toEqual(subtasks.body);
    expect(subtasks.body).toEqual({ items: mine.body.subtasks, total: 1, next_after_id: null });

    const admin = await get(ws.admin, `/api/v1/issues/${issue.key}`);
    expect(admin.body.links.map((l: { key: string }) => l.key)).toEqual([seen.key, secret.key]);
    expect([admin.body.links_total, admin.body.subtasks_total]).toEqual([2, 2]);
    const adminLinks = await walk(ws.admin, `/api/v1/issues/${issue.key}/links`, 1);
    expect(adminLinks.items).toEqual(admin.body.links);
    expect((await walk(ws.admin, `/api/v1/issues/${issue.key}/subtasks`, 1)).items).toEqual(admin.body.subtasks);
  });

  test('when the issue is hidden, unknown, of another workspace or the key is malformed, then every list is the same 404 as the read', async () => {
    const { ws, queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id);
    const stranger = h.member(ws.id);
    const other = await h.workspace();
    const notFound = (await get(writer, `/api/v1/issues/${queue.key}-999`)).body;
    for (const list of ['comments', 'worklogs', 'history', 'links', 'subtasks']) {
      for (const [as, key] of [[stranger, issue.key], [other.admin, issue.key], [writer, `${queue.key}-999`], [writer, 'nonsense']] as const) {
        const res = await get(as, `/api/v1/issues/${key}/${list}`);
        expect({ list, status: res.status, body: res.body }).toEqual({ list, status: 404, body: notFound });
      }
    }
  });

  test('when the query is not a page, then 422 naming each parameter, and nothing is read', async () => {
    const { queue, writer } = await setup();
    const issue = await h.issue(writer, queue.id);
    const path = `/api/v1/issues/${issue.key}/comments`;
    for (const [query, paths] of INVALID_PAGE_QUERIES) {
      const res = await get(writer, `${path}?${query}`);
      expect({ query, status: res.status, body: res.body }).toEqual({ query, status: 422, body: problem(422, 'validation_failed') });
      expect({ query, paths: res.body.errors.map((e: { path: string }) => e.path).sort() }).toEqual({ query, paths });
    }
    for (const query of VALID_PAGE_QUERIES) expect((await get(writer, `${path}?${query}`)).status).toBe(200);
  });
});
