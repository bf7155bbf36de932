import { searchConditions, searchTextQuery } from '../src/search-conditions';
import { join } from '@tracker/kit';

describe('searchConditions', () => {
  test('only the workspace when nothing else is asked (queueIds null: every queue of it)', () => {
    const where = join(searchConditions({ workspaceId: 4, queueIds: null, limit: 10 }, 's.category'), ' AND ');
    expect(where.text).toBe('i.workspace_id = $1');
    expect(where.values).toEqual([4]);
  });

  test('every filter, the status category read from the column named, every value a parameter', () => {
    const where = join(
      searchConditions(
        {
          workspaceId: 4,
          limit: 10,
          queueIds: [1, 2],
          statusIds: [3],
          assigneeIds: [5],
          assigneeId: 9,
          priority: 'high',
          category: 'progress',
          dueBefore: '2026-12-01',
          label: 'ops',
        },
        'i.status_category',
      ),
      ' AND ',
    );
    expect(where.text).toBe(
      [
        'i.workspace_id = $1',
        'i.queue_id = ANY($2::int[])',
        'i.status_id = ANY($3::int[])',
        'i.assignee_id = ANY($4::int[])',
        'i.assignee_id = $5',
        'i.priority = $6::issue_priority',
        'i.status_category = $7::status_category',
        "i.due_date < $8::date AND i.status_category <> 'done'",
        '$9 = ANY(i.labels)',
      ].join(' AND '),
    );
    expect(where.values).toEqual([4, [1, 2], [3], [5], 9, 'high', 'progress', '2026-12-01', 'ops']);
  });

  test('the free text is a parameter of websearch_to_tsquery', () => {
    const query = searchTextQuery("disk & 'full'");
    expect(query.text).toBe("websearch_to_tsquery('simple', $1)");
    expect(query.values).toEqual(["disk & 'full'"]);
  });
});
