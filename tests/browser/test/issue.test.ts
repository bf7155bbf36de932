import type { Page } from 'playwright-core';
import { expectAccessible, expectFitsWidth, heading, openWorld, readIssue, region, signIn, type Person, type World, withLiveStream, withoutLiveStream } from './world';

/**
 * The issue page, /issues/{KEY}, as people use it: reading an issue with its lists,
 * editing its fields and status, commenting and logging time, a stale edit that keeps
 * what was typed, a reader who may not change anything, and a key that names no issue.
 * The data is made through /api/v1 with each person's own token.
 */
let world: World;
let page: Page;
let bob: Person;
let rita: Person;
let queue: { id: number; key: string };

interface MadeIssue {
  id: number;
  key: string;
  title: string;
}

const newIssue = (title: string, extra: Record<string, unknown> = {}) =>
  world.api<MadeIssue>(world.admin, 'POST', '/api/v1/issues', { queue_id: queue.id, title, ...extra });
const open = async (key: string, title: string) => {
  await page.goto(`${world.system.gatewayUrl}/issues/${key}`);
  await heading(page, `${key} ${title}`).waitFor();
};
/** The tests that run axe or sign a second person in take longer on a busy machine. */
const SLOW = 60_000;

beforeAll(async () => {
  world = await openWorld();
  queue = await world.api(world.admin, 'POST', '/api/v1/queues', { key: 'OPS', name: 'Operations' });
  page = await world.newPage();
  [bob, rita] = await Promise.all([world.invite('Bob Builder'), world.invite('Rita Reader'), signIn(page, world, world.admin)]);
  for (const person of [bob, rita]) await world.api(world.admin, 'PUT', `/api/v1/queues/${queue.id}/permissions/${person.userId}`, { role: 'read-write' });
}, 120_000);

afterAll(async () => {
  await world?.close();
}, 60_000);

describe('an issue with its lists', () => {
  test('when the issue is opened, then the heading and the title hold its key and title, and its comments, worklogs, links, subtasks and history are listed', async () => {
    const button = await newIssue('Login button misaligned');
    const issue = await newIssue('Fix the login form', { description: `The button is off too, see ${button.key}.`, priority: 'high', labels: ['frontend'] });
    await newIssue('Write the form test', { parent_id: issue.id });
    await world.api(world.admin, 'POST', `/api/v1/issues/${issue.key}/comments`, { body: 'Reproduced in Firefox.' });
    await world.api(bob, 'POST', `/api/v1/issues/${issue.key}/comments`, { body: 'Also in Safari.' });
    await world.api(bob, 'POST', `/api/v1/issues/${issue.key}/worklogs`, { minutes: 45, description: 'Looked into it' });

    await open(issue.key, 'Fix the login form');
    expect(await page.title()).toBe(`${issue.key} Fix the login form · Tracker`);
    expect(await page.getByRole('textbox', { name: 'Title' }).inputValue()).toBe('Fix the login form');
    expect(await page.getByRole('combobox', { name: 'Priority' }).inputValue()).toBe('high');
    expect(await page.getByRole('combobox', { name: 'Status' }).evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent)).toBe('Open');

    const comments = await region(page, 'Comments').getByRole('listitem').allTextContents();
    expect(comments).toEqual([expect.stringMatching(/^Ada Admin .*Reproduced in Firefox\.$/), expect.stringMatching(/^Bob Builder .*Also in Safari\.$/)]);
    expect(await region(page, 'Worklogs').textContent()).toMatch(/Bob Builder logged 45 minutes.*Looked into it/);
    expect(await region(page, 'Worklogs').textContent()).toContain('45 minutes logged in all');
    await region(page, 'Links').getByRole('link', { name: button.key }).waitFor();
    expect(await region(page, 'Links').textContent()).toContain(`Mentions ${button.key} Login button misaligned`);
    expect(await region(page, 'Subtasks').getByRole('listitem').textContent()).toMatch(/OPS-\d+ Write the form test Open/);
    expect(await region(page, 'History').textContent()).toMatch(/Ada Admin created the issue/);
    await expectAccessible(page, 'an issue with its lists');
    await page.setViewportSize({ width: 375, height: 800 });
    await expectFitsWidth(page, 375);

    // A link is a real link: its page is the other issue's.
    await region(page, 'Links').getByRole('link', { name: button.key }).click();
    await heading(page, `${button.key} Login button misaligned`).waitFor();
    expect(await region(page, 'Links').textContent()).toContain(`Mentioned by ${issue.key} Fix the login form`);
  }, SLOW);
});

describe('changing an issue', () => {
  test('when the title, priority and due date are changed and saved, then the API has them and History lists each change', async () => {
    const issue = await newIssue('Fix the login form');
    await open(issue.key, 'Fix the login form');
    await page.getByRole('textbox', { name: 'Title' }).fill('Fix the sign-in form');
    await page.getByRole('combobox', { name: 'Priority' }).selectOption('high');
    await page.getByLabel('Due date').fill('2031-12-24');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: Title, Priority, Due date.' }).waitFor();
    await heading(page, `${issue.key} Fix the sign-in form`).waitFor();

    const stored = await readIssue(world, issue.key);
    expect(stored).toMatchObject({ title: 'Fix the sign-in form', priority: 'high', due_date: '2031-12-24', version: 2 });
    const history = region(page, 'History');
    await history.getByText('changed Title from “Fix the login form” to “Fix the sign-in form”').waitFor();
    expect(await history.textContent()).toContain('changed Priority from Normal to High');
    expect(await history.textContent()).toMatch(/set Due date to .*2031/);
    expect(await page.title()).toBe(`${issue.key} Fix the sign-in form · Tracker`);
  });

  test('when a title is emptied, then saving is refused in words next to the field, and nothing is sent', async () => {
    const issue = await newIssue('Keep my title');
    await open(issue.key, 'Keep my title');
    const title = page.getByRole('textbox', { name: 'Title' });
    await title.fill('   ');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Give the issue a title.').waitFor();
    expect(await title.getAttribute('aria-invalid')).toBe('true');
    expect(await title.evaluate((element) => element === document.activeElement)).toBe(true);
    expect((await readIssue(world, issue.key)).version).toBe(1);
  });

  test('when another status is chosen, then the issue moves there at once', async () => {
    const issue = await newIssue('Move me along');
    await open(issue.key, 'Move me along');
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'In progress' });
    await page.getByRole('status').filter({ hasText: 'Status changed to In progress.' }).waitFor();
    expect((await readIssue(world, issue.key)).status).toMatchObject({ name: 'In progress', category: 'progress' });
    await region(page, 'History').getByText('changed Status from Open to In progress').waitFor();
  });

  test('when the status is changed and a title edit saved at once after it, then both are saved, one after the other, with no conflict told', async () => {
    const issue = await newIssue('Do two things');
    await open(issue.key, 'Do two things');
    await page.getByRole('textbox', { name: 'Title' }).fill('Do two things at once');
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'In progress' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: Title.' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Status changed to In progress.' }).waitFor();
    expect(await page.getByText('Someone changed this issue').count()).toBe(0);
    expect(await readIssue(world, issue.key)).toMatchObject({ title: 'Do two things at once', status: { name: 'In progress' }, version: 3 });
  });

  test('when a parent is given by its key and the type is changed, then both are saved and the parent is a link; an unknown key is refused in words; emptied, the parent is cleared', async () => {
    const parent = await newIssue('The whole login work');
    const issue = await newIssue('A part of it');
    await open(issue.key, 'A part of it');
    const parentField = page.getByRole('textbox', { name: 'Parent issue' });
    await parentField.fill('OPS-999');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('There is no issue OPS-999, or you cannot see it').waitFor();
    expect(await parentField.getAttribute('aria-invalid')).toBe('true');
    expect((await readIssue(world, issue.key)).version).toBe(1);

    await parentField.fill(parent.key.toLowerCase());
    await page.getByRole('combobox', { name: 'Type' }).fill('feature');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: Type, Parent issue.' }).waitFor();
    expect(await readIssue(world, issue.key)).toMatchObject({ type: 'feature', parent_id: parent.id });
    expect(await parentField.inputValue()).toBe(parent.key);
    expect(await page.getByText('Subtask of').textContent()).toBe(`Subtask of ${parent.key}`);
    await region(page, 'History').getByText(`set Parent issue to issue #${parent.id}`).waitFor();

    await parentField.fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: Parent issue.' }).waitFor();
    expect((await readIssue(world, issue.key)).parent_id).toBeNull();
    expect(await page.getByText('Subtask of').count()).toBe(0);

    await parentField.fill(parent.key);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: Parent issue.' }).waitFor();
    await page.getByRole('link', { name: parent.key, exact: true }).click();
    await heading(page, `${parent.key} The whole login work`).waitFor();
    await region(page, 'Subtasks').getByRole('link', { name: issue.key }).waitFor();
  });

  test('when a comment is added by keyboard, then it appears and the box is emptied; an empty one is refused in words', async () => {
    const issue = await newIssue('Talk about me');
    await open(issue.key, 'Talk about me');
    const box = page.getByRole('textbox', { name: 'Comment' });
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.getByText('Write the comment first: an empty comment is not added.').waitFor();

    await box.focus();
    await page.keyboard.type('Deployed the fix to staging.');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Add comment');
    await page.keyboard.press('Enter');
    await region(page, 'Comments').getByRole('listitem').filter({ hasText: 'Deployed the fix to staging.' }).waitFor();
    // The list may show the comment (read again, or told by the live stream) a moment before the form hears its own answer and empties.
    await page.getByRole('status').filter({ hasText: /^Comment added\.$/ }).waitFor();
    expect(await box.inputValue()).toBe('');
    expect(await page.getByText('Write the comment first').count()).toBe(0);
    const stored = await readIssue(world, issue.key);
    expect(stored.comments.map((comment: { body: string; author_id: number }) => [comment.body, comment.author_id])).toEqual([['Deployed the fix to staging.', world.admin.userId]]);
  });

  test('when time is logged, then the worklog is listed and the time logged in all grows', async () => {
    const issue = await newIssue('Log on me', { estimate_minutes: 120 });
    await open(issue.key, 'Log on me');
    expect(await region(page, 'Worklogs').textContent()).toContain('No time logged yet.');
    await page.getByRole('spinbutton', { name: 'Minutes' }).fill('0');
    await page.getByRole('button', { name: 'Log time' }).click();
    await page.getByText('Give whole minutes, from 1 to 1440 (a day).').waitFor();
    await page.getByRole('spinbutton', { name: 'Minutes' }).fill('90');
    await page.getByRole('textbox', { name: 'What was done (optional)' }).fill('Pairing with Bob');
    await page.getByRole('button', { name: 'Log time' }).click();
    await region(page, 'Worklogs').getByRole('listitem').filter({ hasText: 'Ada Admin logged 90 minutes' }).waitFor();
    expect(await region(page, 'Worklogs').textContent()).toContain('90 minutes logged in all of 120 minutes estimated.');
    await page.getByRole('status').filter({ hasText: /^Logged 90 minutes\.$/ }).waitFor();
    expect(await page.getByRole('spinbutton', { name: 'Minutes' }).inputValue()).toBe('');
    expect((await readIssue(world, issue.key)).spent_minutes).toBe(90);
  });

  test('when a subtask is added, then it is listed under the issue and is an issue of the same queue with this parent', async () => {
    const issue = await newIssue('Split me');
    await open(issue.key, 'Split me');
    await page.getByRole('textbox', { name: 'New subtask' }).fill('First half');
    await page.getByRole('button', { name: 'Add subtask' }).click();
    const said = page.getByRole('status').filter({ hasText: /Subtask OPS-\d+ added\./ });
    await said.waitFor();
    const key = /OPS-\d+/.exec((await said.textContent())!)![0];
    await region(page, 'Subtasks').getByRole('link', { name: key }).waitFor();
    expect(await page.getByRole('textbox', { name: 'New subtask' }).inputValue()).toBe('');
    expect(await readIssue(world, key)).toMatchObject({ title: 'First half', parent_id: issue.id, queue_id: queue.id });
  });
});

// Without the live stream (offline, or a change not yet told) the page holds the issue as it read it: what a write then meets.
describe('a stale edit', () => {
  afterEach(() => withLiveStream(page));

  test('when someone else changed the issue meanwhile and the live stream did not tell it, then saving says so in words, Reload keeps what was typed and shows theirs, and saving again succeeds', async () => {
    await withoutLiveStream(page);
    const issue = await newIssue('Race me');
    await open(issue.key, 'Race me');
    await world.api(bob, 'PATCH', `/api/v1/issues/${issue.key}`, { priority: 'critical', labels: ['hotfix'] });

    await page.getByRole('textbox', { name: 'Title' }).fill('Race me, typed while Bob saved');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Someone changed this issue since you opened it' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('your changes were not saved');
    expect((await readIssue(world, issue.key)).title).toBe('Race me');
    await expectAccessible(page, 'an issue with a stale edit told');
    await expectFitsWidth(page, 375);

    await alert.getByRole('button', { name: 'Reload' }).click();
    await page.getByText('Their changes are loaded.').waitFor();
    expect(await page.getByRole('textbox', { name: 'Title' }).inputValue()).toBe('Race me, typed while Bob saved');
    expect(await page.getByRole('combobox', { name: 'Priority' }).inputValue()).toBe('critical');
    expect(await page.getByRole('textbox', { name: 'Labels' }).inputValue()).toBe('hotfix');
    expect(await page.getByText(/Changed meanwhile:/).textContent()).toMatch(/Changed meanwhile: Priority \(now Critical\); Labels \(now hotfix\)\. Your changes are kept in the fields \(Title\)/);
    await region(page, 'History').getByText('Bob Builder changed Priority from Normal to Critical').waitFor();

    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: Title.' }).waitFor();
    expect(await readIssue(world, issue.key)).toMatchObject({ title: 'Race me, typed while Bob saved', priority: 'critical', labels: ['hotfix'], version: 3 });
  }, SLOW);
});

describe('a stale status change', () => {
  afterEach(() => withLiveStream(page));

  test('when someone else changed the issue meanwhile and the live stream did not tell it, then choosing a status is refused in words, and after Reload the select shows the status as it is', async () => {
    await withoutLiveStream(page);
    const issue = await newIssue('Race my status');
    const statuses = (await world.api<Array<{ id: number; statuses: Array<{ id: number; name: string }> }>>(world.admin, 'GET', '/api/v1/queues')).find(
      (known) => known.id === queue.id,
    )!.statuses;
    const theirs = statuses.find((status) => status.name !== 'Open' && status.name !== 'In progress')!;
    await open(issue.key, 'Race my status');
    await world.api(bob, 'PATCH', `/api/v1/issues/${issue.key}`, { status_id: theirs.id });

    const select = page.getByRole('combobox', { name: 'Status' });
    await select.selectOption({ label: 'In progress' });
    const alert = page.getByRole('alert').filter({ hasText: 'Someone changed this issue since you opened it' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('so the status was not changed');
    expect((await readIssue(world, issue.key)).status.name).toBe(theirs.name);

    await alert.getByRole('button', { name: 'Reload' }).click();
    await page.getByText('Their changes are loaded.').waitFor();
    expect(await page.getByText(/Changed meanwhile:/).textContent()).toContain(`Status (now ${theirs.name})`);
    expect(await select.evaluate((element: HTMLSelectElement) => element.selectedOptions[0]?.textContent)).toBe(theirs.name);
    expect(await page.getByRole('alert').filter({ hasText: 'Someone changed this issue' }).count()).toBe(0);
  });
});

describe('who may do what', () => {
  test('when a member may only read the queue, then they see the issue without any control to change it, and a write refused meanwhile is told in words', async () => {
    const issue = await newIssue('Read me only', { priority: 'low' });
    await world.api(world.admin, 'POST', `/api/v1/issues/${issue.key}/comments`, { body: 'Visible to readers.' });
    const ritas = await world.newPage();
    await signIn(ritas, world, rita, `/issues/${issue.key}`);
    await heading(ritas, `${issue.key} Read me only`).waitFor();

    // Her role drops to read-only while the page is open: the next write is refused, in words.
    await world.api(world.admin, 'PUT', `/api/v1/queues/${queue.id}/permissions/${rita.userId}`, { role: 'read-only' });
    await ritas.getByRole('textbox', { name: 'Comment' }).fill('May I still write?');
    await ritas.getByRole('button', { name: 'Add comment' }).click();
    const refused = ritas.getByRole('alert').filter({ hasText: 'The comment was not added' });
    await refused.waitFor();
    expect(await refused.textContent()).toContain('read-write or admin role');
    expect(await ritas.getByRole('textbox', { name: 'Comment' }).inputValue()).toBe('May I still write?');

    await ritas.reload();
    await heading(ritas, `${issue.key} Read me only`).waitFor();
    await ritas.getByText('You can read this issue but not change it').waitFor();
    expect(await ritas.getByRole('region', { name: 'Details' }).textContent()).toContain('PriorityLow');
    expect(await ritas.getByRole('region', { name: 'Comments' }).textContent()).toContain('Visible to readers.');
    for (const [role, name] of [
      ['button', 'Save changes'],
      ['combobox', 'Status'],
      ['textbox', 'Title'],
      ['textbox', 'Comment'],
      ['button', 'Log time'],
      ['button', 'Add subtask'],
    ] as const) {
      expect({ name, count: await ritas.getByRole(role, { name }).count() }).toEqual({ name, count: 0 });
    }
  }, SLOW);

  test('when the person’s role on the queue cannot be read, then the issue is shown without controls to change it, and the page says why', async () => {
    const issue = await newIssue('Whose role is it');
    await page.route('**/api/v1/queues', (route) => route.abort());
    try {
      await open(issue.key, 'Whose role is it');
      await page.getByText(`Your role on the queue ${queue.key} could not be read`).waitFor();
      for (const [role, name] of [
        ['button', 'Save changes'],
        ['combobox', 'Status'],
        ['textbox', 'Comment'],
      ] as const) {
        expect({ name, count: await page.getByRole(role, { name }).count() }).toEqual({ name, count: 0 });
      }
    } finally {
      await page.unroute('**/api/v1/queues');
    }
  });

  test('when the key names no issue, then the page says so, with a link to the issues list, in the title too', async () => {
    await page.goto(`${world.system.gatewayUrl}/issues/OPS-999`);
    await heading(page, 'No issue OPS-999, or you cannot see it').waitFor();
    expect(await page.title()).toBe('No issue OPS-999, or you cannot see it · Tracker');
    const back = page.getByRole('link', { name: 'Go to the issues list' });
    expect(await back.getAttribute('href')).toBe('/issues');
  });
});
