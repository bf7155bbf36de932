import type { Page } from 'playwright-core';
import { eventually, expectAccessible, expectFitsWidth, heading, openWorld, pathOf, type Person, signIn, type World } from './world';

/**
 * The issues page as people meet it: the admin finds issues by text and by each filter,
 * the address keeps the view (a reload shows the same), a new issue is made from the
 * page (a missing title told next to the field, nothing made), and a member never sees
 * the issues or the name of a queue they have no role on.
 */
let world: World;
let page: Page;
let member: Person;
let ops: { id: number; key: string };
let hr: { id: number; key: string };

/** The keys in the results table, sorted (the page lists the most recently changed first). */
const keysShown = async (on: Page) => (await on.getByRole('table').getByRole('rowheader').allTextContents()).map((key) => key.trim()).sort();


const expectKeys = (on: Page, keys: string[]) =>
  eventually(async () => {
    expect(await keysShown(on)).toEqual([...keys].sort());
    // The count has caught up with the table: this is the answer to the filters shown, not the one before.
    expect(await on.getByRole('status').filter({ hasText: /match/ }).textContent()).toMatch(new RegExp(`^${keys.length} issues? match`));
  });

beforeAll(async () => {
  world = await openWorld();
  const { admin, api } = world;
  member = await world.invite('Mia Member');
  ops = await api(admin, 'POST', '/api/v1/queues', { key: 'OPS', name: 'Operations' });
  hr = await api(admin, 'POST', '/api/v1/queues', { key: 'HR', name: 'People matters' });
  await api(admin, 'PUT', `/api/v1/queues/${ops.id}/permissions/${member.userId}`, { role: 'read-write' });
  await api(admin, 'POST', '/api/v1/issues', { queue_id: ops.id, title: 'Login fails in Firefox', priority: 'high', assignee_id: admin.userId, labels: ['frontend'], due_date: '2020-01-01' });
  await api(admin, 'POST', '/api/v1/issues', { queue_id: ops.id, title: 'Payment page crashes', priority: 'critical' });
  const docs = await api(admin, 'POST', '/api/v1/issues', { queue_id: ops.id, title: 'Update the deployment docs', priority: 'low', assignee_id: member.userId, due_date: '2020-01-01' });
  const done = (ops as unknown as { statuses: Array<{ id: number; category: string }> }).statuses.find((status) => status.category === 'done')!;
  await api(admin, 'PATCH', `/api/v1/issues/${docs.key}`, { version: docs.version, status_id: done.id });
  await api(admin, 'POST', '/api/v1/issues', { queue_id: hr.id, title: 'Hire a designer', description: 'A secret of the people team.' });
  page = await world.newPage();
}, 180_000);

afterAll(async () => {
  await world?.close();
}, 60_000);

describe('the issues page, for an admin', () => {
  test('when the admin opens it, then every issue of every queue is listed by key with its title, status, assignee, priority and due date', async () => {
    await signIn(page, world, world.admin, '/issues');
    await heading(page, 'Issues').waitFor();
    expect(await page.title()).toBe('Issues · Tracker');
    await expectKeys(page, ['OPS-1', 'OPS-2', 'OPS-3', 'HR-1']);
    const row = page.getByRole('row', { name: /OPS-1/ });
    expect(await row.getByRole('link', { name: 'OPS-1' }).getAttribute('href')).toBe('/issues/OPS-1');
    const cells = (await row.getByRole('cell').allTextContents()).join(' | ');
    expect(cells).toMatch(/Login fails in Firefox \| Open \| Ada Admin \| High \| .*2020.*Overdue/);
    expect(await page.getByRole('row', { name: /OPS-2/ }).textContent()).toMatch(/Unassigned.*Critical.*None/);
    await expectAccessible(page, '/issues with results');
    await expectFitsWidth(page, 375);
  }, 60_000);

  test('when they search by text, then only the matching issues are listed and the address holds the search', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('payment');
    await expectKeys(page, ['OPS-2']);
    await eventually(async () => expect(pathOf(page)).toBe('/issues?q=payment'));
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await expectKeys(page, ['OPS-1', 'OPS-2', 'OPS-3', 'HR-1']);
  });

  test('when they filter by queue, status category, priority, Mine and Overdue, then each narrows the list, and the address keeps them all', async () => {
    await page.getByRole('combobox', { name: 'Queue' }).selectOption({ label: 'Operations (OPS)' });
    await expectKeys(page, ['OPS-1', 'OPS-2', 'OPS-3']);
    await page.getByRole('combobox', { name: 'Status category' }).selectOption({ label: 'Open' });
    await expectKeys(page, ['OPS-1', 'OPS-2']);
    await page.getByRole('checkbox', { name: 'Mine' }).check();
    await expectKeys(page, ['OPS-1']);
    await page.getByRole('checkbox', { name: 'Overdue' }).check();
    await page.getByRole('combobox', { name: 'Priority' }).selectOption({ label: 'High' });
    await eventually(async () => expect(pathOf(page)).toBe('/issues?queue=OPS&category=open&mine=1&overdue=1&priority=high'));
    await expectKeys(page, ['OPS-1']);
    expect(pathOf(page)).toBe('/issues?queue=OPS&category=open&mine=1&overdue=1&priority=high');

    await page.reload();
    await expectKeys(page, ['OPS-1']);
    expect(await page.getByRole('combobox', { name: 'Queue' }).inputValue()).toBe('OPS');
    expect(await page.getByRole('combobox', { name: 'Priority' }).inputValue()).toBe('high');
    expect(await page.getByRole('checkbox', { name: 'Mine' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'Overdue' }).isChecked()).toBe(true);

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expectKeys(page, ['OPS-1', 'OPS-2', 'OPS-3', 'HR-1']);
    expect(pathOf(page)).toBe('/issues');

    // OPS-3 was due long ago too, but it is done: not overdue.
    await page.getByRole('checkbox', { name: 'Overdue' }).check();
    await expectKeys(page, ['OPS-1']);
    await page.getByRole('checkbox', { name: 'Overdue' }).uncheck();
  });

  test('when the assignee or the label filters, then only their issues are listed', async () => {
    await expectKeys(page, ['OPS-1', 'OPS-2', 'OPS-3', 'HR-1']);
    await page.getByRole('combobox', { name: 'Assignee' }).selectOption({ label: 'Mia Member' });
    await expectKeys(page, ['OPS-3']);
    await page.getByRole('combobox', { name: 'Assignee' }).selectOption({ label: 'Anyone' });
    await page.getByRole('textbox', { name: 'Label' }).fill('frontend');
    await expectKeys(page, ['OPS-1']);
    expect(pathOf(page)).toBe('/issues?label=frontend');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expectKeys(page, ['OPS-1', 'OPS-2', 'OPS-3', 'HR-1']);
  });

  test('when nothing matches, then the page says so in words, and is accessible', async () => {
    await page.goto(`${world.system.gatewayUrl}/issues?q=nothingmatchesthis&priority=nonsense&assignee=-1`);
    await page.getByText('No issues match these filters').waitFor();
    expect(await page.getByRole('table').count()).toBe(0);
    // The values that are no filter were ignored and not kept.
    expect(await page.getByRole('combobox', { name: 'Priority' }).inputValue()).toBe('');
    await expectAccessible(page, '/issues with no results');
    await expectFitsWidth(page, 375);
  }, 60_000);

  test('when the new issue has no title, then the problem is told next to the field and nothing is made', async () => {
    await page.goto(`${world.system.gatewayUrl}/issues`);
    await page.getByRole('button', { name: 'New issue' }).click();
    const form = page.getByRole('region', { name: 'New issue' });
    await form.getByRole('button', { name: 'Create issue' }).waitFor();
    await expectAccessible(page, '/issues with the new issue form');
    await expectFitsWidth(page, 375);
    await form.getByRole('combobox', { name: 'Queue' }).selectOption({ label: 'Operations (OPS)' });
    await form.getByRole('textbox', { name: 'Description' }).fill('Steps to follow');
    await form.getByRole('button', { name: 'Create issue' }).click();
    const title = form.getByRole('textbox', { name: 'Title' });
    await eventually(async () => expect(await title.getAttribute('aria-invalid')).toBe('true'));
    // The problem is the field's description, so it is read out with the field.
    const description = await title.evaluate((el) => (el.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent).join(' '));
    expect(description).toMatch(/Give the issue a title/);
    expect(await title.evaluate((el) => el === document.activeElement)).toBe(true);
    const found = await world.api(world.admin, 'POST', '/api/v1/issues/search', { queue_ids: [ops.id] });
    expect(found).toHaveLength(3);
  }, 60_000);

  test('when the new issue is created, then it is made in the chosen queue and its page opens', async () => {
    const form = page.getByRole('region', { name: 'New issue' });
    await form.getByRole('textbox', { name: 'Title' }).fill('Printer on fire');
    await form.getByRole('button', { name: 'Create issue' }).click();
    await heading(page, /OPS-4/).waitFor();
    expect(pathOf(page)).toBe('/issues/OPS-4');
    const made = await world.api(world.admin, 'GET', '/api/v1/issues/OPS-4');
    expect({ title: made.title, description: made.description, created_by: made.created_by }).toEqual({
      title: 'Printer on fire',
      description: 'Steps to follow',
      created_by: world.admin.userId,
    });
  });
});

describe('the issues page, for a member', () => {
  let memberPage: Page;

  beforeAll(async () => {
    memberPage = await world.newPage();
    await signIn(memberPage, world, member, '/issues');
  }, 60_000);

  test('when a member has no role on a queue, then neither its issues nor its name are shown, and Mine is their own', async () => {
    await expectKeys(memberPage, ['OPS-1', 'OPS-2', 'OPS-3', 'OPS-4']);
    const queues = await memberPage.getByRole('combobox', { name: 'Queue' }).getByRole('option').allTextContents();
    expect(queues).toEqual(['All queues', 'Operations (OPS)']);
    expect(await memberPage.content()).not.toContain('People matters');
    await memberPage.getByRole('checkbox', { name: 'Mine' }).check();
    await expectKeys(memberPage, ['OPS-3']);
  });

  test('when the address names the hidden queue, then it is not searched, and the page says why every queue is shown', async () => {
    await memberPage.goto(`${world.system.gatewayUrl}/issues?queue=HR`);
    await memberPage.getByRole('note').filter({ hasText: 'the queue HR, which does not exist or is not visible to you' }).waitFor();
    await expectKeys(memberPage, ['OPS-1', 'OPS-2', 'OPS-3', 'OPS-4']);
    expect(await memberPage.getByRole('combobox', { name: 'Queue' }).inputValue()).toBe('');
  });

  test('no page broke its Content-Security-Policy', () => {
    expect(world.cspViolations).toEqual([]);
  });
});
