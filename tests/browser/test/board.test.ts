import type { Page } from 'playwright-core';
import { card, column, eventually, expectAccessible, expectFitsWidth, heading, keysIn, openWorld, pathOf, type Person, readIssue, signIn, type World, withLiveStream, withoutLiveStream } from './world';

/**
 * A queue's board as people use it: a column per status holding the cards in position
 * order; a card moved by keyboard alone and by drag and drop, each move saved through the
 * API; a move of a card someone changed meanwhile refused in words, the board then showing
 * the truth; a read-only person sees the board but is offered no move.
 */
let world: World;
let page: Page;
let reader: Person;
let ops: { id: number; key: string; statuses: Array<{ id: number; name: string }> };

const statusId = (name: string) => ops.statuses.find((status) => status.name === name)!.id;

beforeAll(async () => {
  world = await openWorld();
  const { admin, api } = world;
  reader = await world.invite('Rita Reader');
  ops = await api(admin, 'POST', '/api/v1/queues', { key: 'OPS', name: 'Operations' });
  await api(admin, 'POST', '/api/v1/queues', { key: 'HR', name: 'People matters' });
  await api(admin, 'PUT', `/api/v1/queues/${ops.id}/permissions/${reader.userId}`, { role: 'read-only' });
  const titles = ['Login fails in Firefox', 'Payment page crashes', 'Update the deployment docs', 'Rotate the certificates'];
  const made = [];
  for (const title of titles) made.push(await api(admin, 'POST', '/api/v1/issues', { queue_id: ops.id, title, assignee_id: title.startsWith('Login') ? admin.userId : null }));
  // OPS-2 goes first in Open; OPS-4 is in progress.
  await api(admin, 'PATCH', '/api/v1/issues/OPS-2', { version: made[1].version, position: 0.5 });
  await api(admin, 'PATCH', '/api/v1/issues/OPS-4', { version: made[3].version, status_id: statusId('In progress') });
  page = await world.newPage();
}, 180_000);

afterAll(async () => {
  await world?.close();
}, 60_000);

describe('the board of a queue', () => {
  test('when the admin opens it, then each status is a column, in workflow order, holding its cards in position order', async () => {
    await signIn(page, world, world.admin, '/queues/OPS');
    await heading(page, 'Operations (OPS)').waitFor();
    expect(await page.title()).toBe('Operations board · Tracker');
    await card(page, 'Open', 'OPS-1').waitFor();
    const regions = await page.getByRole('region').evaluateAll((sections) => sections.map((section) => section.getAttribute('aria-labelledby')).map((id) => document.getElementById(id!)?.textContent));
    expect(regions).toEqual(['Open', 'In progress', 'In review', 'Done', 'Cancelled']);
    expect(await keysIn(page, 'Open')).toEqual(['OPS-2', 'OPS-1', 'OPS-3']);
    expect(await keysIn(page, 'In progress')).toEqual(['OPS-4']);
    expect(await keysIn(page, 'Done')).toEqual([]);
    expect(await card(page, 'Open', 'OPS-1').textContent()).toContain('Login fails in Firefox');
    expect(await card(page, 'Open', 'OPS-1').textContent()).toContain('Ada Admin');
    expect(await card(page, 'Open', 'OPS-2').textContent()).toContain('Unassigned');
    expect(await page.getByRole('link', { name: 'OPS-1', exact: true }).getAttribute('href')).toBe('/issues/OPS-1');
    // An admin of the queue reaches its permissions; anyone reaches its issues as a list.
    expect(await page.getByRole('link', { name: 'Permissions' }).getAttribute('href')).toBe('/queues/OPS/permissions');
    expect(await page.getByRole('link', { name: /as a list/ }).getAttribute('href')).toBe('/issues?queue=OPS');
    await expectAccessible(page, '/queues/OPS');
    await expectFitsWidth(page, 375);
  }, 60_000);

  test('when a card is moved by keyboard alone with "Move to", then the issue changes status in the API, the move is told, and the focus stays on the card', async () => {
    const moveTo = card(page, 'Open', 'OPS-1').getByRole('combobox', { name: 'Move to' });
    await moveTo.focus();
    // The next status of the workflow is offered first; one down is In review.
    expect(await moveTo.evaluate((select: HTMLSelectElement) => select.selectedOptions[0]!.textContent)).toBe('In progress');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'OPS-1 moved to In review' }).waitFor();
    expect(await keysIn(page, 'In review')).toEqual(['OPS-1']);
    expect(await keysIn(page, 'Open')).toEqual(['OPS-2', 'OPS-3']);
    expect((await readIssue(world, 'OPS-1')).status.name).toBe('In review');
    const focused = card(page, 'In review', 'OPS-1').getByRole('combobox', { name: 'Move to' });
    await eventually(async () => expect(await focused.evaluate((el) => el === document.activeElement)).toBe(true));
  });

  test('when a card is dragged to another column, then it moves there and the API has it; dropped on a card, it goes before it', async () => {
    await card(page, 'Open', 'OPS-3').dragTo(column(page, 'Done'));
    await page.getByRole('status').filter({ hasText: 'OPS-3 moved to Done' }).waitFor();
    expect(await keysIn(page, 'Done')).toEqual(['OPS-3']);
    expect((await readIssue(world, 'OPS-3')).status.name).toBe('Done');

    await card(page, 'Open', 'OPS-2').dragTo(card(page, 'In progress', 'OPS-4'), { targetPosition: { x: 20, y: 4 } });
    await page.getByRole('status').filter({ hasText: 'OPS-2 moved to In progress' }).waitFor();
    expect(await keysIn(page, 'In progress')).toEqual(['OPS-2', 'OPS-4']);
    const [moved, below] = await Promise.all([readIssue(world, 'OPS-2'), readIssue(world, 'OPS-4')]);
    expect(moved.status.name).toBe('In progress');
    expect(moved.position).toBeLessThan(below.position);
  });

  test('when a card someone changed meanwhile is moved before the live stream told the board, then the move is refused in words and the board shows the truth', async () => {
    // Without the stream (offline, or the change not yet told) the board holds the card as it read it.
    await withoutLiveStream(page);
    await page.reload();
    await card(page, 'In progress', 'OPS-4').waitFor();
    const current = await readIssue(world, 'OPS-4');
    await world.api(world.admin, 'PATCH', '/api/v1/issues/OPS-4', { version: current.version, title: 'Rotate the TLS certificates', status_id: statusId('Cancelled') });
    // The board still shows OPS-4 in progress, as it was read; moving it sends that version.
    const stale = card(page, 'In progress', 'OPS-4');
    await stale.getByRole('combobox', { name: 'Move to' }).selectOption({ label: 'Done' });
    await stale.getByRole('button', { name: 'Move OPS-4' }).click();
    const refusal = card(page, 'Cancelled', 'OPS-4').getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('OPS-4 was not moved: someone changed it since the board was loaded. The board now shows it as it is; move it again if you still want to.');
    expect(await keysIn(page, 'In progress')).toEqual(['OPS-2']);
    expect(await keysIn(page, 'Done')).toEqual(['OPS-3']);
    expect(await card(page, 'Cancelled', 'OPS-4').textContent()).toContain('Rotate the TLS certificates');
    const after = await readIssue(world, 'OPS-4');
    expect({ status: after.status.name, version: after.version }).toEqual({ status: 'Cancelled', version: current.version + 1 });
    await expectAccessible(page, '/queues/OPS with a refused move');
    await withLiveStream(page);
  }, 60_000);
});

describe('the board, for others', () => {
  let readerPage: Page;

  beforeAll(async () => {
    readerPage = await world.newPage();
    await signIn(readerPage, world, reader, '/queues/OPS');
  }, 60_000);

  test('when a read-only person opens the board, then they see the cards but are offered no move, and told why', async () => {
    await card(readerPage, 'In progress', 'OPS-2').waitFor();
    expect(await keysIn(readerPage, 'Done')).toEqual(['OPS-3']);
    expect(await readerPage.getByRole('combobox', { name: 'Move to' }).count()).toBe(0);
    expect(await card(readerPage, 'In progress', 'OPS-2').getAttribute('draggable')).toBe('false');
    await readerPage.getByText('Your role on this queue is read-only').waitFor();
    expect(await readerPage.getByRole('link', { name: 'Permissions' }).count()).toBe(0);
    await expectAccessible(readerPage, '/queues/OPS read-only');
  }, 60_000);

  test('when the queue is hidden from them or does not exist, then the page says it is not found, with a way back', async () => {
    for (const key of ['HR', 'NOPE']) {
      await readerPage.goto(`${world.system.gatewayUrl}/queues/${key}`);
      await heading(readerPage, 'Queue not found').waitFor();
      expect(await readerPage.getByText(`There is no queue with the key ${key}, or it is not visible to you.`).count()).toBe(1);
      expect(await readerPage.content()).not.toContain('People matters');
    }
    await readerPage.getByRole('link', { name: 'Back to the issues' }).click();
    await heading(readerPage, 'Issues').waitFor();
    expect(pathOf(readerPage)).toBe('/issues');
    await expectFitsWidth(readerPage, 375);
  });

  test('no page broke its Content-Security-Policy', () => {
    expect(world.cspViolations).toEqual([]);
  });
});
