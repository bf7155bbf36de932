import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { card, column, expectAccessible, expectFitsWidth, heading, keysIn, openWorld, readIssue, region, signIn, type Person, type World } from './world';

/**
 * Two people at once: Ada has the board and an issue open while Bob changes things
 * through the API. Ada's pages show his changes as they happen (the live event stream),
 * say them politely, never yank a card she is on, and never overwrite what she is typing:
 * a change to a field she is editing is told, with Reload keeping her text. Her own
 * writes, coming back on the stream, change nothing and tell nothing.
 */
let world: World;
let ada: Person;
let bob: Person;
let page: Page;
let ops: { id: number; key: string; statuses: Array<{ id: number; name: string }> };

/** Others' changes show within two seconds; five leave room for a busy machine. */
const LIVE = { timeout: 5_000 };
/** Where the pages are photographed at 1280 and 375 pixels, to be looked at. */
const SHOTS = process.env.LIVE_SCREENSHOTS_DIR ?? path.join(os.tmpdir(), 'tracker-live-screenshots');

const statusId = (name: string) => ops.statuses.find((status) => status.name === name)!.id;
const said = (words: string | RegExp) => page.getByRole('status').filter({ hasText: words });
/** Bob's change to an issue, at the version it has now. */
const bobChanges = async (key: string, changes: Record<string, unknown>) => world.api(bob, 'PATCH', `/api/v1/issues/${key}`, { version: (await readIssue(world, key)).version, ...changes });
const newIssue = (title: string) => world.api<{ id: number; key: string }>(world.admin, 'POST', '/api/v1/issues', { queue_id: ops.id, title });

/** The whole page at 1280 pixels; at 375, the screen around `at` (what the person looks at). */
async function screenshots(name: string, at: Locator): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 375, height: 800 });
  await at.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, `${name}-375.png`) });
  await page.setViewportSize({ width: 1280, height: 800 });
}

beforeAll(async () => {
  world = await openWorld();
  ada = world.admin;
  bob = await world.invite('Bob Builder');
  ops = await world.api(ada, 'POST', '/api/v1/queues', { key: 'OPS', name: 'Operations' });
  await world.api(ada, 'POST', '/api/v1/queues', { key: 'HR', name: 'People matters' });
  await world.api(ada, 'PUT', `/api/v1/queues/${ops.id}/permissions/${bob.userId}`, { role: 'read-write' });
  for (const title of ['Login fails in Firefox', 'Payment page crashes', 'Rotate the certificates']) await newIssue(title);
  page = await world.newPage();
  await signIn(page, world, ada, '/queues/OPS');
}, 180_000);

afterAll(async () => {
  await world?.close();
}, 60_000);

describe('the board, live', () => {
  test('when Bob moves a card, then Ada`s board shows it in its new column and says so politely', async () => {
    await card(page, 'Open', 'OPS-1').waitFor();
    await bobChanges('OPS-1', { status_id: statusId('Done') });
    await card(page, 'Done', 'OPS-1').waitFor(LIVE);
    await said('OPS-1 moved to Done by Bob Builder.').waitFor(LIVE);
    expect(await keysIn(page, 'Open')).toEqual(['OPS-2', 'OPS-3']);
    expect(await keysIn(page, 'Done')).toEqual(['OPS-1']);
    // The announcement is a polite live region, not an alert.
    expect(await page.getByRole('alert').count()).toBe(0);
    await expectAccessible(page, '/queues/OPS after a live move');
    await expectFitsWidth(page, 375);
    await screenshots('board-live-move', column(page, 'Done'));
  }, 60_000);

  test('when Bob adds an issue, reorders one and renames another, then the board shows each; an issue of another queue does not appear', async () => {
    const hr = (await world.api(ada, 'GET', '/api/v1/queues')).find((queue: { key: string }) => queue.key === 'HR');
    await world.api(ada, 'POST', '/api/v1/issues', { queue_id: hr.id, title: 'Not for this board' });
    const made = await world.api<{ key: string }>(bob, 'POST', '/api/v1/issues', { queue_id: ops.id, title: 'Renew the domain' });
    await card(page, 'Open', made.key).waitFor(LIVE);
    await said(`${made.key} added to Open by Bob Builder.`).waitFor(LIVE);
    expect(await card(page, 'Open', made.key).textContent()).toContain('Renew the domain');

    await bobChanges('OPS-3', { position: -10 });
    await said('OPS-3 moved within Open by Bob Builder.').waitFor(LIVE);
    expect(await keysIn(page, 'Open')).toEqual(['OPS-3', 'OPS-2', made.key]);

    await bobChanges('OPS-2', { title: 'Payment page crashes on Safari' });
    await card(page, 'Open', 'OPS-2').getByText('Payment page crashes on Safari').waitFor(LIVE);
    // The HR issue was made before all of these, so its event has come and gone.
    expect(await page.getByText('Not for this board').count()).toBe(0);
    expect(await keysIn(page, 'Open')).toEqual(['OPS-3', 'OPS-2', made.key]);
  }, 60_000);

  test('when Bob moves the card Ada is moving by keyboard, then it stays under her focus, told on the card, and moves once she leaves it', async () => {
    const moveTo = card(page, 'Open', 'OPS-3').getByRole('combobox', { name: 'Move to' });
    await moveTo.focus();
    await bobChanges('OPS-3', { status_id: statusId('In review') });
    await said('OPS-3 moved to In review by Bob Builder; the card shows it when you leave it.').waitFor(LIVE);
    // Still in Open, the focus where she left it, her choice still offered.
    expect(await keysIn(page, 'Open')).toContain('OPS-3');
    expect(await moveTo.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await card(page, 'Open', 'OPS-3').textContent()).toContain('Moved to In review by Bob Builder; shown when you leave this card.');
    await expectAccessible(page, '/queues/OPS with a card waiting under the focus');
    await screenshots('board-live-held', card(page, 'Open', 'OPS-3'));

    await heading(page, 'Operations (OPS)').focus();
    await card(page, 'In review', 'OPS-3').waitFor(LIVE);
    expect(await keysIn(page, 'Open')).not.toContain('OPS-3');
    expect(await card(page, 'In review', 'OPS-3').textContent()).not.toContain('shown when you leave this card');
  }, 60_000);

  test('when Ada moves a card herself, then her move is told once, as hers, and the card stays where she put it', async () => {
    const moveTo = card(page, 'Open', 'OPS-2').getByRole('combobox', { name: 'Move to' });
    await moveTo.selectOption({ label: 'Cancelled' });
    await card(page, 'Open', 'OPS-2').getByRole('button', { name: 'Move OPS-2' }).click();
    await said('OPS-2 moved to Cancelled.').waitFor(LIVE);
    // Bob's next change comes after her move's event on the stream: once it shows, hers has been seen too.
    await bobChanges('OPS-1', { title: 'Login fails in Firefox and Safari' });
    await said('OPS-1 renamed “Login fails in Firefox and Safari” by Bob Builder.').waitFor(LIVE);
    expect(await keysIn(page, 'Cancelled')).toEqual(['OPS-2']);
    // Moved from the card as Bob renamed it before she came to it (the version her move sent).
    expect(await card(page, 'Cancelled', 'OPS-2').textContent()).toContain('Payment page crashes on Safari');
    expect(await page.getByText('by you').count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
  }, 60_000);
});

describe('an issue, live', () => {
  let key: string;

  const open = async (title: string) => {
    await page.goto(`${world.system.gatewayUrl}/issues/${key}`);
    await heading(page, `${key} ${title}`).waitFor();
  };
  const conflict = () => page.getByRole('alert').filter({ hasText: 'changed this issue' });

  beforeAll(async () => {
    key = (await newIssue('Fix the login form')).key;
  });

  test('when Bob comments, then the comment appears on Ada`s page, once, and is said', async () => {
    await open('Fix the login form');
    await world.api(bob, 'POST', `/api/v1/issues/${key}/comments`, { body: 'Seen it on staging too.' });
    await region(page, 'Comments').getByRole('listitem').filter({ hasText: 'Seen it on staging too.' }).waitFor(LIVE);
    await said('Bob Builder added a comment.').waitFor(LIVE);
    expect(await region(page, 'Comments').getByRole('listitem').allTextContents()).toEqual([expect.stringMatching(/^Bob Builder .*Seen it on staging too\.$/)]);
  }, 60_000);

  test('when Bob changes the status and a field while Ada is not editing, then the page shows them, with no conflict', async () => {
    await bobChanges(key, { status_id: statusId('In progress'), priority: 'high' });
    await said('Bob Builder changed the status to In progress and Priority.').waitFor(LIVE);
    expect(await page.getByRole('combobox', { name: 'Priority' }).inputValue()).toBe('high');
    expect(await page.getByRole('combobox', { name: 'Status' }).evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent)).toBe('In progress');
    expect(await page.getByRole('button', { name: 'Reload' }).count()).toBe(0);
    await region(page, 'History').getByText('Bob Builder changed Priority from Normal to High').waitFor(LIVE);
  }, 60_000);

  test('when Bob changes the title Ada is editing, then she is told, her text stays, and Reload brings his changes keeping hers', async () => {
    const title = page.getByRole('textbox', { name: 'Title' });
    await title.fill('Fix the login form, typed by Ada');
    await bobChanges(key, { title: 'Fix the login form, by Bob', labels: ['frontend'] });
    const notice = conflict();
    await notice.waitFor(LIVE);
    expect(await notice.textContent()).toContain('Bob Builder changed this issue while you were editing.');
    expect(await notice.textContent()).toContain('The saved Title now differs from what you typed.');
    expect(await title.inputValue()).toBe('Fix the login form, typed by Ada');
    // Nothing of his is taken under her: the heading and the labels are as she read them.
    await heading(page, new RegExp(`^${key} Fix the login form$`)).waitFor();
    expect(await page.getByRole('textbox', { name: 'Labels' }).inputValue()).toBe('');
    await expectAccessible(page, 'an issue with a live conflict told');
    await expectFitsWidth(page, 375);
    await screenshots('issue-live-conflict', page.getByRole('textbox', { name: 'Title' }));

    await notice.getByRole('button', { name: 'Reload' }).click();
    await page.getByText('Their changes are loaded.').waitFor();
    expect(await title.inputValue()).toBe('Fix the login form, typed by Ada');
    expect(await page.getByRole('textbox', { name: 'Labels' }).inputValue()).toBe('frontend');
    expect(await page.getByText(/You both changed Title/).textContent()).toContain('theirs was “Fix the login form, by Bob”');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await said('Saved: Title.').waitFor();
    expect(await readIssue(world, key)).toMatchObject({ title: 'Fix the login form, typed by Ada', labels: ['frontend'] });
    expect(await conflict().count()).toBe(0);
  }, 60_000);

  test('when Ada changes the status and comments herself while editing the description, then no conflict is told and her comment shows once', async () => {
    const description = page.getByRole('textbox', { name: 'Description' });
    await description.fill('Typed by Ada, not saved yet.');
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'In review' });
    await said('Status changed to In review.').waitFor();
    await page.getByRole('textbox', { name: 'Comment' }).fill('On it.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await said('Comment added.').waitFor();
    // Bob's comment comes after her writes on the stream: once it shows, hers have been seen.
    await world.api(bob, 'POST', `/api/v1/issues/${key}/comments`, { body: 'Thanks!' });
    await region(page, 'Comments').getByRole('listitem').filter({ hasText: 'Thanks!' }).waitFor(LIVE);
    expect(await conflict().count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reload' }).count()).toBe(0);
    expect(await description.inputValue()).toBe('Typed by Ada, not saved yet.');
    expect(await region(page, 'Comments').getByRole('listitem').filter({ hasText: 'On it.' }).count()).toBe(1);
    expect(await region(page, 'Comments').getByRole('listitem').count()).toBe(3);
    await said('Bob Builder added a comment.').waitFor();
    await screenshots('issue-live-comment', region(page, 'Comments'));
  }, 60_000);
});

describe('the pages, live', () => {
  test('no page broke its Content-Security-Policy (the stream is on the page`s own origin)', () => {
    expect(world.cspViolations).toEqual([]);
  });
});
