import { applyIssueEvent, boardChangeInWords, liveKept, shownCards, waitingInWords, type LiveCard } from '../app/src/rules/live-board';

/** A board of the queue 1 with the statuses Open (10), In progress (11), Done (12). */
const card = (id: number, status_id: number, position: number, version = 1, title = `Issue ${id}`): LiveCard => ({
  id,
  key: `OPS-${id}`,
  title,
  status_id,
  position,
  version,
  assignee_id: null,
  priority: 'normal',
});
const eventIssue = (of: LiveCard, queue_id = 1) => ({
  ...of,
  workspace_id: 1,
  queue_id,
  description: '',
  status: { id: of.status_id, name: 'x', category: 'open' as const },
  parent_id: null,
  type: 'task',
  labels: [],
  due_date: null,
  estimate_minutes: 0,
  spent_minutes: 0,
  created_by: 1,
  created_at: '2026-11-29T10:00:00Z',
  updated_at: '2026-11-29T10:00:00Z',
});
const byId = (...cards: LiveCard[]) => new Map(cards.map((c) => [c.id, c]));
const none = new Map<number, LiveCard>();
const nobody = new Set<number>();
const free = new Map<number, LiveCard | undefined>();

describe('an issue event on a board', () => {
  test('when another person moves a card to another status, then the live card is the event`s and the change is a move to that status', () => {
    const shown = byId(card(3, 10, 1, 4));
    const applied = applyIssueEvent(none, shown, 1, eventIssue(card(3, 12, 7, 5)));
    expect(applied!.live.get(3)).toEqual(card(3, 12, 7, 5));
    expect(applied!.change).toEqual({ key: 'OPS-3', kind: 'moved', statusId: 12, title: 'Issue 3' });
  });

  test('when the issue is new to the board, then it is added; a reorder, a new title and another assignee are told apart', () => {
    expect(applyIssueEvent(none, none, 1, eventIssue(card(9, 10, 3)))!.change!.kind).toBe('added');
    const shown = byId(card(3, 10, 1, 4));
    expect(applyIssueEvent(none, shown, 1, eventIssue(card(3, 10, 0.5, 5)))!.change!.kind).toBe('reordered');
    expect(applyIssueEvent(none, shown, 1, eventIssue(card(3, 10, 1, 5, 'New title')))!.change).toMatchObject({ kind: 'renamed', title: 'New title' });
    expect(applyIssueEvent(none, shown, 1, eventIssue({ ...card(3, 10, 1, 5), assignee_id: 7 }))!.change!.kind).toBe('changed');
  });

  test('when nothing a card shows changed (the description), then the card is newer but nothing is said', () => {
    const applied = applyIssueEvent(none, byId(card(3, 10, 1, 4)), 1, eventIssue(card(3, 10, 1, 5)));
    expect(applied!.live.get(3)!.version).toBe(5);
    expect(applied!.change).toBeNull();
  });

  test('when the issue is of another queue, then the board ignores it', () => {
    expect(applyIssueEvent(none, byId(card(3, 10, 1, 4)), 1, eventIssue(card(3, 12, 1, 5), 2))).toBeNull();
    expect(applyIssueEvent(none, none, 1, eventIssue(card(30, 12, 1, 1), 2))).toBeNull();
  });

  test('when the version is not newer than the board shows (the person`s own move coming back, a duplicate), then it is dropped', () => {
    const shown = byId(card(3, 12, 1, 5));
    expect(applyIssueEvent(none, shown, 1, eventIssue(card(3, 12, 1, 5)))).toBeNull();
    expect(applyIssueEvent(none, shown, 1, eventIssue(card(3, 10, 1, 4)))).toBeNull();
  });

  test('when events come reordered (version 7 before 6), then the older one is dropped against the live card, even if the board still draws an older one', () => {
    const shown = byId(card(3, 10, 1, 5));
    const seven = applyIssueEvent(none, shown, 1, eventIssue(card(3, 12, 1, 7)))!;
    expect(applyIssueEvent(seven.live, shown, 1, eventIssue(card(3, 11, 1, 6)))).toBeNull();
    expect(seven.live.get(3)!.status_id).toBe(12);
  });
});

describe('the cards a board draws', () => {
  const read = [card(1, 10, 1, 1), card(2, 10, 2, 3)];

  test('when a live card is newer than the read, then it is drawn; issues only the stream told of come after', () => {
    const live = byId(card(2, 12, 1, 4), card(5, 10, 9, 1));
    expect(shownCards(read, live, none, nobody, free)).toEqual([card(1, 10, 1, 1), card(2, 12, 1, 4), card(5, 10, 9, 1)]);
  });

  test('when the person is on a card (dragging it, or the focus in it), then what came live since waits: the card stays as it was drawn when they came to it', () => {
    const live = byId(card(2, 12, 1, 5));
    expect(shownCards(read, live, none, nobody, new Map([[2, undefined]]))).toEqual(read);
    // A change told before they came to the card stays drawn (its version is what a move sends).
    expect(shownCards(read, live, none, nobody, new Map([[2, card(2, 11, 1, 4)]]))[1]).toEqual(card(2, 11, 1, 4));
    // A card only the stream told of stays too.
    expect(shownCards(read, byId(card(8, 10, 1, 2)), none, nobody, new Map([[8, card(8, 10, 1, 1)]]))[2]).toEqual(card(8, 10, 1, 1));
  });

  test('when the person`s own move is under way, then it is drawn whatever came live; once done, it is drawn unless a live change is newer', () => {
    const mine = byId(card(2, 11, 5, 3));
    const live = byId(card(2, 12, 1, 4));
    expect(shownCards(read, live, mine, new Set([2]), free)[1]).toEqual(card(2, 11, 5, 3));
    expect(shownCards(read, live, byId(card(2, 11, 5, 4)), nobody, free)[1]).toEqual(card(2, 11, 5, 4));
    expect(shownCards(read, byId(card(2, 12, 1, 5)), byId(card(2, 11, 5, 4)), nobody, free)[1]).toEqual(card(2, 12, 1, 5));
  });

  test('when the board is read again, then the live cards it caught up with are dropped; newer ones and issues it does not hold stay', () => {
    const live = byId(card(1, 12, 1, 2), card(2, 12, 1, 4), card(7, 10, 1, 1));
    const fresh = [card(1, 12, 1, 2), card(2, 10, 2, 3)];
    expect([...liveKept(live, fresh).keys()]).toEqual([2, 7]);
  });
});

describe('a change in words', () => {
  const change = { key: 'OPS-3', statusId: 12, title: 'Rotate the keys' };

  test('when a card moved, was added, reordered, renamed or changed, then the words say which and who did it', () => {
    expect(boardChangeInWords({ ...change, kind: 'moved' }, 'Done', 'Bob Builder')).toBe('OPS-3 moved to Done by Bob Builder.');
    expect(boardChangeInWords({ ...change, kind: 'added' }, 'Open', 'Bob Builder')).toBe('OPS-3 added to Open by Bob Builder.');
    expect(boardChangeInWords({ ...change, kind: 'reordered' }, 'Done', 'Bob Builder')).toBe('OPS-3 moved within Done by Bob Builder.');
    expect(boardChangeInWords({ ...change, kind: 'renamed' }, 'Done', 'Bob Builder')).toBe('OPS-3 renamed “Rotate the keys” by Bob Builder.');
    expect(boardChangeInWords({ ...change, kind: 'changed' }, 'Done', 'Bob Builder')).toBe('OPS-3 changed by Bob Builder.');
  });

  test('when the person is on the card, then the words say it waits for them, and so does the card', () => {
    expect(boardChangeInWords({ ...change, kind: 'moved' }, 'Done', 'Bob Builder', true)).toBe('OPS-3 moved to Done by Bob Builder; the card shows it when you leave it.');
    expect(waitingInWords({ ...change, kind: 'moved' }, 'Done', 'Bob Builder')).toBe('Moved to Done by Bob Builder; shown when you leave this card.');
    expect(waitingInWords({ ...change, kind: 'renamed' }, 'Done', 'Bob Builder')).toBe('Renamed “Rotate the keys” by Bob Builder; shown when you leave this card.');
    expect(waitingInWords({ ...change, kind: 'changed' }, 'Done', 'Bob Builder')).toBe('Changed by Bob Builder; shown when you leave this card.');
  });
});
