import { rotation } from '../src/loader';

describe('versioned PATCH rotation', () => {
  const job = { kind: 'throughput' as const, url: 'http://x/api/v1/issues/{key}', connections: 1, durationSeconds: 1, keys: ['Q1-1', 'Q1-2'], versions: [3, 7], body: '{"title":"edit {version}","version":"{version}"}' };

  it('sends each issue the version last seen, as the number and in the title, so every PATCH changes it', () => {
    const requests = rotation(job, 0, 1);
    const first = requests.next();
    expect(first).toEqual({ path: '/api/v1/issues/Q1-1', key: 'Q1-1', body: '{"title":"edit 3","version":3}' });
    requests.answered('Q1-1', 200, JSON.stringify({ key: 'Q1-1', version: 4 }));
    expect(requests.next().body).toBe('{"title":"edit 7","version":7}');
    expect(requests.next().body).toBe('{"title":"edit 4","version":4}');
  });

  it('takes the current version from a conflict and keeps the last one for an answer that is not JSON', () => {
    const requests = rotation({ ...job, keys: ['Q1-1'], versions: [3] }, 0, 1);
    requests.answered('Q1-1', 409, JSON.stringify({ code: 'version_conflict', version: 9 }));
    expect(requests.next().body).toBe('{"title":"edit 9","version":9}');
    requests.answered('Q1-1', 200, 'not json');
    expect(requests.next().body).toBe('{"title":"edit 9","version":9}');
  });
});
