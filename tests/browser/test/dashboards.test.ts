import type { Locator, Page } from 'playwright-core';
import { pollUntil } from '@tracker/system-tests-support';
import { eventually, expectAccessible, expectFitsWidth, heading, openWorld, pathOf, signIn, type Person, type World } from './world';

/**
 * Dashboards and statistics as people meet them: a dashboard made, given widgets with
 * their own filters, saved, edited and trimmed in the page; the statistics page with its
 * filters in the address. Every figure a chart or table shows is held to what
 * POST /api/v1/statistics answers the same person for the same filters; a member sees
 * no figure of a queue hidden from them.
 */
let world: World;
let page: Page;
let bea: Person;
let ops: { id: number; statuses: Array<{ id: number; name: string; category: string }> };
let web: { id: number; statuses: Array<{ id: number; name: string; category: string }> };

interface Stats {
  total: number;
  progress: { open: number; progress: number; done: number; total: number; done_percent: number };
  queues: Array<{ key: string; total: number }>;
  assignees: Array<{ assignee_id: number | null; total: number }>;
}

const statistics = (person: Person, filters: Record<string, unknown>) => world.api<Stats>(person, 'POST', '/api/v1/statistics', filters);

/** The status-category figures of an answer, as the page shows them. */
const byCategory = (stats: Stats): Array<[string, string]> => [
  ['Open', String(stats.progress.open)],
  ['In progress', String(stats.progress.progress)],
  ['Done', String(stats.progress.done)],
];
const byQueue = (stats: Stats): Array<[string, string]> => stats.queues.map((queue) => [queue.key, String(queue.total)]);
const inWords = (figures: Array<[string, string]>) => figures.map(([label, value]) => `${label} ${value}`).join(', ');

/** A figures table's body rows as [label, value] pairs. */
async function tableFigures(table: Locator): Promise<Array<[string, string]>> {
  const rows = await table.getByRole('row').allInnerTexts();
  return rows.slice(1).map((row) => row.split('\t').map((cell) => cell.trim()) as [string, string]);
}

async function makeIssue(queueId: number, title: string, statusId: number | null, extra: Record<string, unknown> = {}) {
  const issue = await world.api(world.admin, 'POST', '/api/v1/issues', { queue_id: queueId, title, ...extra });
  if (statusId !== null) await world.api(world.admin, 'PATCH', `/api/v1/issues/${issue.key}`, { status_id: statusId });
}

const statusOf = (queue: typeof ops, category: string) => queue.statuses.find((status) => status.category === category)!.id;

beforeAll(async () => {
  world = await openWorld();
  bea = await world.invite('Bea Member');
  await world.api(world.admin, 'POST', '/api/v1/queues', { key: 'OPS', name: 'Operations' });
  await world.api(world.admin, 'POST', '/api/v1/queues', { key: 'WEB', name: 'Website' });
  const queues = await world.api(world.admin, 'GET', '/api/v1/queues');
  ops = queues.find((queue: { key: string }) => queue.key === 'OPS');
  web = queues.find((queue: { key: string }) => queue.key === 'WEB');
  // Bea reads OPS only: WEB is hidden from her.
  await world.api(world.admin, 'PUT', `/api/v1/queues/${ops.id}/permissions/${bea.userId}`, { role: 'read-only' });
  const made: Array<Promise<void>> = [];
  // OPS: 3 open (one Bea's, two high), 2 in progress, 2 done. WEB: 2 open, 1 done.
  made.push(makeIssue(ops.id, 'Rotate the keys', null, { priority: 'high', assignee_id: bea.userId }));
  made.push(makeIssue(ops.id, 'Patch the hosts', null, { priority: 'high' }));
  made.push(makeIssue(ops.id, 'Renew the certificate', null));
  made.push(makeIssue(ops.id, 'Move the backups', statusOf(ops, 'progress')));
  made.push(makeIssue(ops.id, 'Tune the alerts', statusOf(ops, 'progress'), { assignee_id: bea.userId }));
  made.push(makeIssue(ops.id, 'Upgrade the database', statusOf(ops, 'done')));
  made.push(makeIssue(ops.id, 'Close the old VPN', statusOf(ops, 'done')));
  made.push(makeIssue(web.id, 'New landing page', null, { priority: 'high' }));
  made.push(makeIssue(web.id, 'Fix the footer', null));
  made.push(makeIssue(web.id, 'Compress the images', statusOf(web, 'done')));
  await Promise.all(made);
  // The statistics read a replica: wait until it holds every issue in its status.
  const settled = await pollUntil(
    () => statistics(world.admin, {}),
    (stats) => stats.total === 10 && stats.progress.done === 3 && stats.progress.progress === 2,
    20_000,
  );
  expect(settled.progress).toMatchObject({ open: 5, progress: 2, done: 3 });
  page = await world.newPage();
  await signIn(page, world, world.admin, '/dashboards');
}, 180_000);

afterAll(async () => {
  await world?.close();
}, 60_000);

let dashboardPath = '';

describe('a dashboard, made and edited in the page', () => {
  test('when there is no dashboard yet, then the list says so, and the page is accessible at both widths', async () => {
    await heading(page, 'Dashboards').waitFor();
    expect(await page.title()).toBe('Dashboards · Tracker');
    await page.getByText('No dashboards yet').waitFor();
    await expectAccessible(page, '/dashboards, empty');
    await expectFitsWidth(page, 375);
  });

  test('when a name is missing, then the form says so next to the field; with one, the new dashboard opens', async () => {
    await page.getByRole('button', { name: 'Create dashboard' }).click();
    const name = page.getByRole('textbox', { name: 'Name' });
    await page.getByText('Give the dashboard a name.').waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    await name.fill('Release');
    await page.getByRole('button', { name: 'Create dashboard' }).click();
    await heading(page, 'Release').waitFor();
    dashboardPath = pathOf(page);
    expect(dashboardPath).toMatch(/^\/dashboards\/\d+$/);
    expect(await page.title()).toBe('Release · Tracker');
    await page.getByText('No widgets yet').waitFor();
  });

  test('when two widgets with different filters are added and saved, then after a reload each has a chart and a table with the API’s figures', async () => {
    await page.getByRole('button', { name: 'New widget' }).click();
    const first = page.getByRole('form', { name: 'New widget' });
    await first.getByRole('textbox', { name: 'Widget title' }).fill('Team progress');
    await first.getByRole('combobox', { name: 'Group by' }).selectOption({ label: 'Status category' });
    await first.getByRole('combobox', { name: 'Queue' }).selectOption({ label: 'OPS: Operations' });
    await first.getByRole('button', { name: 'Add widget' }).click();
    // The new widget takes the focus, and is marked until saved.
    await page.getByRole('heading', { level: 3, name: 'Team progress' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Team progress');
    await page.getByText('Not saved yet', { exact: true }).waitFor();

    // The second by keyboard: Enter on the buttons.
    await page.getByRole('button', { name: 'New widget' }).focus();
    await page.keyboard.press('Enter');
    const second = page.getByRole('form', { name: 'New widget' });
    await second.getByRole('combobox', { name: 'Group by' }).selectOption({ label: 'Queue' });
    await second.getByRole('combobox', { name: 'Status category' }).selectOption({ label: 'Open' });
    await second.getByRole('button', { name: 'Add widget' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 3, name: 'Issues by queue with status category Open' }).waitFor();

    await page.getByRole('button', { name: 'Save dashboard' }).click();
    await page.getByRole('status').filter({ hasText: 'Dashboard saved.' }).waitFor();
    expect(await page.getByText('Not saved yet', { exact: true }).count()).toBe(0);

    await page.reload();
    await heading(page, 'Release').waitFor();
    const opsStats = await statistics(world.admin, { queue_ids: [ops.id] });
    const openStats = await statistics(world.admin, { category: 'open' });
    expect(byCategory(opsStats)).toEqual([
      ['Open', '3'],
      ['In progress', '2'],
      ['Done', '2'],
    ]);
    await page.getByRole('img', { name: `Team progress, issues by status category in OPS: ${inWords(byCategory(opsStats))}`, exact: true }).waitFor();
    expect(await tableFigures(page.getByRole('table', { name: 'Team progress' }))).toEqual(byCategory(opsStats));
    await page.getByRole('img', { name: `Issues by queue with status category Open: ${inWords(byQueue(openStats))}`, exact: true }).waitFor();
    expect(await tableFigures(page.getByRole('table', { name: 'Issues by queue with status category Open' }))).toEqual([
      ['OPS', '3'],
      ['WEB', '2'],
    ]);
  });

  test('when a widget’s filter is edited, then its figures change at once, and saving keeps them', async () => {
    await page.getByRole('button', { name: 'Edit widget Team progress' }).click();
    const editor = page.getByRole('form', { name: 'Edit Team progress' });
    await editor.getByRole('combobox', { name: 'Queue' }).selectOption({ label: 'WEB: Website' });
    await expectAccessible(page, '/dashboards/{id} with two widgets, one being edited');
    await expectFitsWidth(page, 375);
    await editor.getByRole('button', { name: 'Apply changes' }).click();
    const webStats = await statistics(world.admin, { queue_ids: [web.id] });
    const label = `Team progress, issues by status category in WEB: ${inWords(byCategory(webStats))}`;
    await page.getByRole('img', { name: label, exact: true }).waitFor();
    expect(await tableFigures(page.getByRole('table', { name: 'Team progress' }))).toEqual([
      ['Open', '2'],
      ['In progress', '0'],
      ['Done', '1'],
    ]);
    await page.getByText('Not saved yet', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Save dashboard' }).click();
    await page.getByRole('status').filter({ hasText: 'Dashboard saved.' }).waitFor();
    await page.reload();
    await page.getByRole('img', { name: label, exact: true }).waitFor();
  });

  test('when a widget is removed and the dashboard renamed and saved, then one widget is left under the new name', async () => {
    await page.getByRole('button', { name: 'Remove widget Issues by queue with status category Open' }).click();
    await page.getByRole('status').filter({ hasText: 'Removed the widget' }).waitFor();
    expect(await page.getByRole('img').count()).toBe(1);
    await page.getByRole('textbox', { name: 'Dashboard name' }).fill('Release 2');
    await page.getByRole('button', { name: 'Save dashboard' }).click();
    await heading(page, 'Release 2').waitFor();
    await page.reload();
    await heading(page, 'Release 2').waitFor();
    await page.getByRole('img', { name: /^Team progress, / }).waitFor();
    expect(await page.getByRole('img').count()).toBe(1);
    expect(await page.getByRole('table').count()).toBe(1);
  });

  test('while a save is on its way, then the widgets cannot be changed and the name is read-only, and the focus stays where it was', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const saves = '**/api/v1/dashboards/*';
    await page.route(saves, async (route) => {
      if (route.request().method() === 'PUT') await held;
      await route.continue();
    });
    const name = page.getByRole('textbox', { name: 'Dashboard name' });
    const save = page.getByRole('button', { name: 'Save dashboard' });
    // Inert controls are hidden from assistive technology, so they are looked for among the hidden too.
    const edit = page.getByRole('button', { name: 'Edit widget Team progress', includeHidden: true });
    const newWidget = page.getByRole('button', { name: 'New widget', includeHidden: true });
    const inert = (control: Locator) => control.evaluate((element) => element.closest('[inert]') !== null);
    await name.press('Enter');
    await eventually(async () => expect(await save.getAttribute('aria-disabled')).toBe('true'));
    expect([await inert(edit), await inert(newWidget), await name.getAttribute('readonly')]).toEqual([true, true, '']);
    expect(await name.evaluate((element) => element === document.activeElement)).toBe(true);
    release();
    await page.getByRole('status').filter({ hasText: 'Dashboard saved.' }).waitFor();
    await page.unroute(saves);
    expect([await inert(edit), await inert(newWidget), await name.getAttribute('readonly'), await save.getAttribute('aria-disabled')]).toEqual([false, false, null, null]);
    expect(await name.evaluate((element) => element === document.activeElement)).toBe(true);
  });

  test('when the dashboard was saved elsewhere meanwhile, then saving says so in words, and Reload shows that version', async () => {
    const id = Number(dashboardPath.split('/').pop());
    await page.getByRole('textbox', { name: 'Dashboard name' }).fill('Mine now');
    await world.api(world.admin, 'PUT', `/api/v1/dashboards/${id}`, { name: 'Saved elsewhere', widgets: [{ type: 'queues', title: 'All queues', filters: {} }] });
    await page.getByRole('button', { name: 'Save dashboard' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'saved elsewhere' });
    await alert.waitFor();
    await alert.getByRole('button', { name: 'Reload' }).click();
    await heading(page, 'Saved elsewhere').waitFor();
    const all = await statistics(world.admin, {});
    await page.getByRole('img', { name: `All queues, issues by queue: ${inWords(byQueue(all))}`, exact: true }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Dashboard name' }).inputValue()).toBe('Saved elsewhere');
  });

  test('when the list is opened again, then it links the dashboard by its name', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboards' }).click();
    await heading(page, 'Dashboards').waitFor();
    const link = page.getByRole('link', { name: 'Saved elsewhere' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(dashboardPath);
  });

  test('when an address names no dashboard, then the page says so and links back to the list', async () => {
    await page.goto(`${world.system.gatewayUrl}/dashboards/999999`);
    await heading(page, 'Dashboard not found').waitFor();
    await page.getByRole('link', { name: 'All dashboards' }).waitFor();
  });
});

describe('the statistics page', () => {
  test('when filters are chosen, then the address keeps them, a reload keeps them, and the figures are the API’s', async () => {
    await page.goto(`${world.system.gatewayUrl}/statistics`);
    await heading(page, 'Statistics').waitFor();
    expect(await page.title()).toBe('Statistics · Tracker');
    const all = await statistics(world.admin, {});
    await page.getByRole('img', { name: `Issues by status category: ${inWords(byCategory(all))}`, exact: true }).waitFor();

    await page.getByRole('combobox', { name: 'Queue' }).selectOption({ label: 'OPS: Operations' });
    await page.getByRole('combobox', { name: 'Priority' }).selectOption({ label: 'High' });
    // Named as on /issues and in the decisions.
    expect(await page.getByRole('checkbox', { name: 'Mine' }).isChecked()).toBe(false);
    await page.getByRole('button', { name: 'Show statistics' }).click();
    await page.waitForURL((url) => url.search === '?queue=OPS&priority=high');
    const high = await statistics(world.admin, { queue_ids: [ops.id], priority: 'high' });
    expect(byCategory(high)).toEqual([
      ['Open', '2'],
      ['In progress', '0'],
      ['Done', '0'],
    ]);
    const subject = 'Issues by status category in OPS, of high priority';
    await page.getByRole('img', { name: `${subject}: ${inWords(byCategory(high))}`, exact: true }).waitFor();
    expect(await tableFigures(page.getByRole('table', { name: subject }))).toEqual(byCategory(high));

    // Grouping changes the view at once, in the address too.
    await page.getByRole('combobox', { name: 'Group by' }).selectOption({ label: 'Assignee' });
    await page.waitForURL((url) => url.search.endsWith('&group=assignees'));
    const byAssignee = await tableFigures(page.getByRole('table', { name: 'Issues by assignee in OPS, of high priority' }));
    expect(byAssignee).toEqual([
      ['Unassigned', '1'],
      ['Bea Member', '1'],
    ]);

    await page.reload();
    await heading(page, 'Statistics').waitFor();
    expect(await page.getByRole('combobox', { name: 'Queue' }).inputValue()).toBe(String(ops.id));
    expect(await page.getByRole('combobox', { name: 'Priority' }).inputValue()).toBe('high');
    expect(await page.getByRole('combobox', { name: 'Group by' }).inputValue()).toBe('assignees');
    expect(await tableFigures(page.getByRole('table', { name: 'Issues by assignee in OPS, of high priority' }))).toEqual(byAssignee);
    await page.getByText(`${high.total} issues match`).waitFor();
    // An address from before queues were named by key still reads.
    await page.goto(`${world.system.gatewayUrl}/statistics?queue=${ops.id}&priority=high&group=assignees`);
    const oldAddress = page.getByRole('table', { name: 'Issues by assignee in OPS, of high priority' });
    await oldAddress.waitFor();
    expect(await tableFigures(oldAddress)).toEqual(byAssignee);
    await expectAccessible(page, '/statistics with filters');
    await expectFitsWidth(page, 375);
  });

  test('when the filters match nothing, then the page says so in words instead of an empty chart', async () => {
    await page.goto(`${world.system.gatewayUrl}/statistics?label=no-such-label`);
    await page.getByText('No issues match these filters.').waitFor();
    expect(await page.getByRole('img').count()).toBe(0);
    expect(await page.getByRole('textbox', { name: 'Label' }).inputValue()).toBe('no-such-label');
  });
});

describe('a member who cannot see a queue', () => {
  let beaPage: Page;
  let hiddenPath = '';
  let sharedPath = '';

  beforeAll(async () => {
    const hidden = await world.api(world.admin, 'POST', '/api/v1/dashboards', { name: 'Website work', widgets: [{ type: 'statuses', filters: { queue_ids: [web.id] } }] });
    const shared = await world.api(world.admin, 'POST', '/api/v1/dashboards', { name: 'Operations work', widgets: [{ type: 'assignees', title: 'Who', filters: { queue_ids: [ops.id] } }] });
    hiddenPath = `/dashboards/${hidden.id}`;
    sharedPath = `/dashboards/${shared.id}`;
    beaPage = await world.newPage();
    await signIn(beaPage, world, bea, '/statistics?group=queues');
  }, 60_000);

  test('when they open the statistics by queue, then only the queues they can see are counted, as the API counts for them', async () => {
    const theirs = await statistics(bea, {});
    expect(byQueue(theirs)).toEqual([['OPS', '7']]);
    await beaPage.getByRole('img', { name: `Issues by queue: ${inWords(byQueue(theirs))}`, exact: true }).waitFor();
    expect(await tableFigures(beaPage.getByRole('table', { name: 'Issues by queue' }))).toEqual([['OPS', '7']]);
    const queueChoices = await beaPage.getByRole('combobox', { name: 'Queue' }).getByRole('option').allInnerTexts();
    expect(queueChoices).toEqual(['All queues you can see', 'OPS: Operations']);
    expect(await beaPage.getByText('WEB', { exact: true }).count()).toBe(0);
  });

  test('when they ask for a hidden queue by its id in the address, then they are told in words and shown no figures', async () => {
    await beaPage.goto(`${world.system.gatewayUrl}/statistics?queue=${web.id}`);
    await beaPage.getByRole('alert').filter({ hasText: 'a queue you cannot see' }).waitFor();
    expect(await beaPage.getByRole('img').count()).toBe(0);
  });

  test('when they open the dashboards, then one naming a hidden queue is neither listed nor shown; another’s is shown without editing', async () => {
    await beaPage.goto(`${world.system.gatewayUrl}/dashboards`);
    await beaPage.getByRole('link', { name: 'Operations work' }).waitFor();
    expect(await beaPage.getByRole('link', { name: 'Website work' }).count()).toBe(0);

    await beaPage.goto(`${world.system.gatewayUrl}${hiddenPath}`);
    await heading(beaPage, 'Dashboard not found').waitFor();
    expect(await beaPage.getByRole('img').count()).toBe(0);

    await beaPage.goto(`${world.system.gatewayUrl}${sharedPath}`);
    await heading(beaPage, 'Operations work').waitFor();
    const who = await statistics(bea, { queue_ids: [ops.id] });
    const figures = who.assignees.map((row) => [row.assignee_id === null ? 'Unassigned' : 'Bea Member', String(row.total)] as [string, string]);
    await beaPage.getByRole('img', { name: `Who, issues by assignee in OPS: ${inWords(figures)}`, exact: true }).waitFor();
    await beaPage.getByText('Only Ada Admin can change it.').waitFor();
    expect(await beaPage.getByRole('button', { name: 'Save dashboard' }).count()).toBe(0);
    expect(await beaPage.getByRole('button', { name: /Remove widget/ }).count()).toBe(0);
    await expectAccessible(beaPage, '/dashboards/{id} of another person');
    await expectFitsWidth(beaPage, 375);
  });
});

test('no page broke its Content-Security-Policy', () => {
  expect(world.cspViolations).toEqual([]);
});
