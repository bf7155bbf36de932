import { HISTORY_FIELDS } from '@tracker/contracts';
import { ISSUE_FIELD_API_NAMES } from '../src/domain/issue-wire';
import { PATCHABLE_FIELDS } from '../src/domain/issue-update.rules';
import { createIssueInput, updateIssueInput } from '../src/routes/requests';

describe('request bodies under the domain names', () => {
  test('a POST body becomes the creation input, field by field', () => {
    expect(
      createIssueInput({
        queue_id: 3,
        title: 'T',
        description: 'D',
        assignee_id: 7,
        parent_id: null,
        priority: 'high',
        type: 'bug',
        labels: ['a'],
        due_date: '2030-01-31',
        estimate_minutes: 90,
      }),
    ).toEqual({ queueId: 3, title: 'T', description: 'D', assigneeId: 7, parentId: null, priority: 'high', type: 'bug', labels: ['a'], dueDate: '2030-01-31', estimateMinutes: 90 });
  });

  test('a PATCH body keeps absent fields absent and null as null, with its version', () => {
    expect(updateIssueInput({ version: 2, status_id: 5, assignee_id: null, estimate_minutes: 0 })).toEqual({ version: 2, statusId: 5, assigneeId: null, estimateMinutes: 0 });
    expect(updateIssueInput({})).toEqual({});
  });

  test('the fields a PATCH may change are the contract history fields, in their order, under their domain names', () => {
    expect(PATCHABLE_FIELDS.map((field) => ISSUE_FIELD_API_NAMES[field])).toEqual(HISTORY_FIELDS.filter((name) => name !== 'created'));
  });
});
