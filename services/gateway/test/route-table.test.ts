import { openApiDocument } from '@tracker/contracts';
import { routeTemplate, upstreamFor, type Upstream } from '../src/domain/route-table';

describe('upstreamFor', () => {
  test.each<[string, Upstream]>([
    ['/api/v1/me', 'access'],
    ['/api/v1/users', 'access'],
    ['/api/v1/users/5', 'access'],
    ['/api/v1/queues/3/permissions', 'access'],
    // The permission history pages: access's, as the read they page.
    ['/api/v1/queues/3/permissions/history', 'access'],
    ['/api/v1/queues/3/permissions/7', 'access'],
    ['/api/v1/queues/ABC/permissions/7', 'access'],
    ['/api/v1/queues', 'issues'],
    ['/api/v1/queues/3', 'issues'],
    ['/api/v1/statuses', 'issues'],
    ['/api/v1/issues', 'issues'],
    ['/api/v1/issues/ABC-1', 'issues'],
    ['/api/v1/issues/ABC-1/comments', 'issues'],
    ['/api/v1/issues/ABC-1/worklogs', 'issues'],
    ['/api/v1/issues/ABC-1/history', 'issues'],
    ['/api/v1/issues/ABC-1/links', 'issues'],
    ['/api/v1/issues/ABC-1/subtasks', 'issues'],
    ['/api/v1/issues/search', 'issues'],
    ['/api/v1/statistics', 'statistics'],
    ['/api/v1/dashboards', 'statistics'],
    ['/api/v1/dashboards/2', 'statistics'],
    ['/api/v1/dashboards/2/statistics', 'statistics'],
    ['/mcp', 'agent'],
    // The public event log: the feed, and the stream and webhooks to come.
    ['/api/v1/events', 'notifications'],
    ['/api/v1/events/stream', 'notifications'],
    ['/api/v1/webhooks', 'notifications'],
    ['/api/v1/webhooks/3/deliveries/9/retry', 'notifications'],
  ])('when the path is %s, then it goes to %s', (path, upstream) => {
    expect(upstreamFor(path)).toBe(upstream);
  });

  test.each([
    '/',
    '/api/v1',
    '/api/v1/',
    '/api/v1/foo',
    '/api/v1/mee',
    '/api/v1/me/',
    '/api/v1/usersx',
    '/api/v1/queuesx',
    '/api/v1/issuesx',
    '/api/v1/statisticsx',
    '/api/v1/eventsx',
    '/api/v1/webhooksx',
    '/api/v1/statistics/1',
    '/api/v1/statuses/1',
    '/api/v1/dashboardsx',
    '/api/v1/dashboards/2/widgets',
    '/api/v1/dashboards/2/statistics/1',
    '/api/v1/dashboards/statistics/2',
    '/api/v1/dashboards//statistics',
    '/mcp/',
    '/mcp/tools',
    '/api/v1/mcp',
    '/api/v1/users/5/extra',
    '/api/v2/me',
    '/v1/me',
    '/x/api/v1/me',
    '/internal/auth/resolve',
    '/healthz',
  ])('when the path is %s, then no upstream owns it', (path) => {
    expect(upstreamFor(path)).toBeNull();
  });
});

describe('routeTemplate (the metrics route label)', () => {
  test.each([
    ['/api/v1/issues/WEB-1/comments', '/api/v1/issues/{key}/comments'],
    ['/api/v1/issues/WEB-1/history', '/api/v1/issues/{key}/history'],
    ['/api/v1/issues/WEB-1/subtasks', '/api/v1/issues/{key}/subtasks'],
    ['/api/v1/queues/3/permissions/7', '/api/v1/queues/{queue_id}/permissions/{user_id}'],
    ['/api/v1/issues/search', '/api/v1/issues/search'],
    ['/api/v1/issues/WEB-1', '/api/v1/issues/{key}'],
    ['/api/v1/dashboards/7/statistics', '/api/v1/dashboards/{dashboard_id}/statistics'],
    ['/api/v1/me', '/api/v1/me'],
    ['/api/v1/events', '/api/v1/events'],
    ['/mcp', '/mcp'],
    // Owned by a service (it answers 404), but no public route: one label for all of them.
    ['/api/v1/issues/WEB-1/comments/7/x', 'unmatched'],
    ['/api/v1/queues/a/b/c/d/e/f', 'unmatched'],
    ['/api/v1/nothing/here', 'unmatched'],
    ['/wp-admin/setup.php', 'unmatched'],
  ])('%s → %s', (path, label) => {
    expect(routeTemplate(path)).toBe(label);
  });

  test('then every label is a path of the OpenAPI document, /mcp or unmatched: a finite set whatever the paths', () => {
    const documented = new Set([...Object.keys(openApiDocument().paths as object), '/mcp', 'unmatched']);
    const labels = new Set(Array.from({ length: 2000 }, (_, i) => routeTemplate(`/api/v1/${['issues', 'queues', 'users', 'dashboards'][i % 4]}/${'x'.repeat(i)}/${i % 3 ? 'comments' : i}`)));
    for (const label of labels) expect(documented).toContain(label);
    expect(labels.size).toBeLessThanOrEqual(documented.size);
  });
});
