import { columnsOf, dropIndex, dropPosition, moveProblem, moveRequest, staysInPlace, stillMoved, suggestedStatus } from '../app/src/rules/board';

const STATUSES = [
  { id: 13, name: 'Done', position: 4 },
  { id: 10, name: 'Open', position: 1 },
  { id: 12, name: 'In review', position: 3 },
  { id: 11, name: 'In progress', position: 2 },
];

const issue = (id: number, status_id: number, position: number, version = 1) => ({ id, key: `OPS-${id}`, status_id, position, version });

describe('the columns of a board', () => {
  test('when statuses come in any order, then the columns follow the workflow, each with its issues by position', () => {
    const columns = columnsOf(STATUSES, [issue(1, 11, 3), issue(2, 10, 1), issue(3, 11, 1.5), issue(4, 11, -2), issue(5, 13, 1)]);
    expect(columns.map((column) => [column.status.name, column.cards.map((card) => card.key)])).toEqual([
      ['Open', ['OPS-2']],
      ['In progress', ['OPS-4', 'OPS-3', 'OPS-1']],
      ['In review', []],
      ['Done', ['OPS-5']],
    ]);
  });

  test('when two issues share a position, then the older (smaller id) comes first, whatever order they came in', () => {
    const columns = columnsOf(STATUSES, [issue(9, 10, 2), issue(4, 10, 2)]);
    expect(columns[0]!.cards.map((card) => card.id)).toEqual([4, 9]);
  });

  test('when an issue names a status that is not the queue`s, then no column shows it', () => {
    const columns = columnsOf(STATUSES, [issue(1, 99, 1)]);
    expect(columns.flatMap((column) => column.cards)).toEqual([]);
  });
});

describe('where a dropped card lands', () => {
  const cards = [{ position: 1 }, { position: 2 }, { position: 5 }];

  test('when dropped before the first card, then it goes 1 before it', () => {
    expect(dropPosition(cards, 0)).toBe(0);
  });

  test('when dropped between two cards, then it goes half-way between them', () => {
    expect(dropPosition(cards, 1)).toBe(1.5);
    expect(dropPosition(cards, 2)).toBe(3.5);
  });

  test('when dropped after the last card or in an empty column, then no position is sent: the API puts it last', () => {
    expect(dropPosition(cards, 3)).toBeUndefined();
    expect(dropPosition([], 0)).toBeUndefined();
  });

  test('when the pointer is above a card`s middle, then the card goes before it', () => {
    expect(dropIndex([100, 200, 300], 50)).toBe(0);
    expect(dropIndex([100, 200, 300], 150)).toBe(1);
    expect(dropIndex([100, 200, 300], 350)).toBe(3);
    expect(dropIndex([], 10)).toBe(0);
  });

  test('when a card is dropped back at its own place, then it stays; anywhere else it moves', () => {
    const column = [{ id: 1 }, { id: 2 }, { id: 3 }];
    expect(staysInPlace(column, 2, 1)).toBe(true);
    expect(staysInPlace(column, 2, 0)).toBe(false);
    expect(staysInPlace(column, 3, 2)).toBe(true);
    expect(staysInPlace(column, 7, 0)).toBe(false);
  });
});

describe('the PATCH of a move', () => {
  test('when a card moves to another status, then the status and the version read are sent, and the position if it has one', () => {
    expect(moveRequest(issue(3, 10, 1, 4), 11, undefined)).toEqual({ version: 4, status_id: 11 });
    expect(moveRequest(issue(3, 10, 1, 4), 11, 2.5)).toEqual({ version: 4, status_id: 11, position: 2.5 });
  });

  test('when a card is reordered within its status, then only the position and the version are sent', () => {
    expect(moveRequest(issue(3, 10, 1, 2), 10, 0)).toEqual({ version: 2, position: 0 });
  });

  test('when a card stays where it is, then nothing is sent', () => {
    expect(moveRequest(issue(3, 10, 1), 10, undefined)).toBeNull();
    expect(moveRequest(issue(3, 10, 1), 10, 1)).toBeNull();
  });
});

describe('the moves kept over a new read of the board', () => {
  test('when the read has not caught up with a move (its version is lower), then the moved card stays; one the read caught up with, or no longer holds, is dropped', () => {
    const moved = new Map([
      [1, issue(1, 12, 1, 3)],
      [2, issue(2, 12, 2, 2)],
      [3, issue(3, 13, 1, 5)],
      [4, issue(4, 11, 1, 1)],
    ]);
    const fresh = [issue(1, 10, 1, 2), issue(2, 12, 2, 2), issue(3, 11, 1, 6), issue(4, 10, 1, 1)];
    expect([...stillMoved(moved, fresh).entries()]).toEqual([[1, issue(1, 12, 1, 3)]]);
    expect(stillMoved(moved, []).size).toBe(0);
  });
});

describe('the status a "Move to" control offers first', () => {
  test('when the card is not in the last status, then the next one in the workflow', () => {
    expect(suggestedStatus(STATUSES, 10)).toBe(11);
    expect(suggestedStatus(STATUSES, 12)).toBe(13);
  });

  test('when the card is in the last status, then the first other one', () => {
    expect(suggestedStatus(STATUSES, 13)).toBe(10);
  });

  test('when the queue has one status only, then none', () => {
    expect(suggestedStatus([{ id: 1, name: 'Open', position: 1 }], 1)).toBeUndefined();
  });
});

describe('a refused move, in words', () => {
  const problem = (status: number, code: string) => ({ status, code, detail: `detail of ${code}` });

  test('when the issue changed since it was read (409 or 412), then the words say so and that the board shows it as it is', () => {
    for (const refused of [problem(409, 'version_conflict'), problem(412, 'precondition_failed')]) {
      expect(moveProblem(refused, 'OPS-3', 'Done')).toBe(
        'OPS-3 was not moved: someone changed it since the board was loaded. The board now shows it as it is; move it again if you still want to.',
      );
    }
  });

  test('when the role is read-only (403), then the words name the role as the reason', () => {
    expect(moveProblem(problem(403, 'forbidden'), 'OPS-3', 'Done')).toBe('OPS-3 was not moved: your role on this queue lets you read its issues but not change them.');
  });

  test('when the move is not allowed (422), then the words name the status and the API`s reason', () => {
    expect(moveProblem(problem(422, 'validation_failed'), 'OPS-3', 'Done')).toBe('OPS-3 cannot move to Done: detail of validation_failed');
  });

  test('when the issue is gone (404) or anything else, then the words say it was not moved and why', () => {
    expect(moveProblem(problem(404, 'not_found'), 'OPS-3', 'Done')).toBe('OPS-3 was not moved: it no longer exists or you can no longer see it.');
    expect(moveProblem(problem(503, 'network_error'), 'OPS-3', 'Done')).toBe('OPS-3 was not moved: detail of network_error');
  });
});
