import { isPage, matchPage, pathTo } from '../src/pages';

describe('the pages and their paths', () => {
  test('when a path names a page with parameters, then the page and its decoded parameters are given', () => {
    expect(matchPage('/issues/OPS-12')).toEqual({ page: 'issue', params: { key: 'OPS-12' } });
    expect(matchPage('/queues/OPS')).toEqual({ page: 'board', params: { key: 'OPS' } });
    expect(matchPage('/queues/OPS/permissions')).toEqual({ page: 'permissions', params: { key: 'OPS' } });
    expect(matchPage('/dashboards/7')).toEqual({ page: 'dashboard', params: { id: '7' } });
    expect(matchPage('/issues/a%20b')).toEqual({ page: 'issue', params: { key: 'a b' } });
  });

  test('when a path is no page, then there is no match', () => {
    for (const path of ['/issues/', '/issues/A/B', '/queues', '/dashboards/', '/dashboards/abc', '/dashboards/0', '/dashboards/1e3', `/issues/${'K'.repeat(101)}`, '/issues/%E0%A4%A', '/Issues']) {
      expect({ path, page: matchPage(path) }).toEqual({ path, page: null });
      expect(isPage(path)).toBe(false);
    }
  });

  test('when a page path is made, then its parameters are encoded and it matches back', () => {
    expect(pathTo('issue', { key: 'OPS-1' })).toBe('/issues/OPS-1');
    expect(pathTo('dashboard', { id: 3 })).toBe('/dashboards/3');
    const odd = pathTo('issue', { key: 'a/b?c' });
    expect(odd).toBe('/issues/a%2Fb%3Fc');
    expect(matchPage(odd)).toEqual({ page: 'issue', params: { key: 'a/b?c' } });
  });
});
