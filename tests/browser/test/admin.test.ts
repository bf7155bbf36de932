import type { Locator, Page } from 'playwright-core';
import { eventually, expectAccessible, expectFitsWidth, heading, openWorld, pathOf, PASSWORD, signIn, type World } from './world';

/**
 * The admin pages as their people meet them, in Chromium through the gateway: the
 * workspace's first admin invites a colleague and hands over the setup link, which the
 * colleague opens in a browser of their own; the admin changes the colleague's role, is
 * told in words next to their own row that the only admin cannot step down, makes a new
 * setup link; creates a queue (a bad key told next to "Key"), grants the colleague a role
 * on it, changes and revokes it, and the history lists each change. The colleague, a
 * member, sees neither the users nor the right to grant. Only accessible locators; axe on
 * every page; every page fits 375 pixels.
 */
let world: World;
let admin: Page;
let colleague: Page;
const bob = { name: 'Bob Smith', email: `bob-${Math.random().toString(36).slice(2, 8)}@example.com`, id: 0 };
let firstLink = '';

beforeAll(async () => {
  world = await openWorld();
  admin = await world.newPage();
  await admin.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.system.gatewayUrl });
  await signIn(admin, world, world.admin, '/admin/users');
}, 180_000);

afterAll(async () => {
  await world?.close();
}, 60_000);

/** What a control's aria-describedby says: the words read out after its name (its hint and its problem). */
const descriptionOf = (control: Locator) =>
  control.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );

/** A setup link as the page shows it names PUBLIC_URL (here unset: another port); opened on this system's gateway. */
const onGateway = (link: string) => `${world.system.gatewayUrl}/setup${new URL(link).hash}`;

/** Waits until the control named `name` holds the focus. */
const focusOn = (page: Page, name: string) => page.waitForFunction((label) => document.activeElement?.getAttribute('aria-label') === label, name, { timeout: 5_000 });
/** Waits until `control` holds the focus. */
const focusIsOn = (control: Locator) => eventually(async () => expect(await control.evaluate((element) => element === document.activeElement)).toBe(true), 5_000);
const rowOf = (page: Page, name: string | RegExp) => page.getByRole('row', { name });
const statusSaying = (page: Page, words: RegExp) => page.getByRole('status').filter({ hasText: words }).waitFor();
const usersNow = () => world.api<Array<{ id: number; email: string; role: string; active: boolean }>>(world.admin, 'GET', '/api/v1/users');

describe('users: invite, hand over the setup link, roles', () => {
  test('when the admin opens Users, then the invite form and the people of the workspace are there, themselves marked', async () => {
    await heading(admin, 'Users').waitFor();
    expect(await admin.title()).toBe('Users · Tracker');
    const me = rowOf(admin, /Ada Admin/);
    await me.waitFor();
    expect(await me.textContent()).toContain(world.admin.email);
    expect(await me.textContent()).toContain('you');
    expect(await admin.getByRole('combobox', { name: 'Role for Ada Admin' }).inputValue()).toBe('admin');
    for (const name of ['Name', 'Email']) await admin.getByRole('textbox', { name }).waitFor();
    expect(await admin.getByRole('combobox', { name: 'Role', exact: true }).inputValue()).toBe('member');
  });

  test('when the admin invites a colleague by keyboard alone, then the setup link appears focused, read-only, copies, and says it works once until when', async () => {
    await admin.getByRole('textbox', { name: 'Name' }).focus();
    await admin.keyboard.type(bob.name);
    await admin.keyboard.press('Tab');
    await admin.keyboard.type(bob.email);
    await admin.keyboard.press('Tab');
    expect(await admin.evaluate(() => document.activeElement?.tagName)).toBe('SELECT');
    await admin.keyboard.press('Tab');
    expect(await admin.evaluate(() => document.activeElement?.textContent)).toBe('Invite');
    await admin.keyboard.press('Enter');

    const link = admin.getByRole('textbox', { name: 'Setup link' });
    await link.waitFor();
    firstLink = await link.inputValue();
    expect(firstLink).toMatch(/\/setup#code=[A-Za-z0-9_-]{20,}$/);
    expect(await link.getAttribute('readonly')).not.toBeNull();
    expect(await link.evaluate((element) => element === document.activeElement)).toBe(true);
    const help = await descriptionOf(link);
    expect(help).toContain(`Give this link to ${bob.name} (${bob.email})`);
    expect(help).toMatch(/works once, until .+ \(72 hours from now\)/);

    await admin.getByRole('button', { name: 'Copy' }).click();
    await statusSaying(admin, /copied/);
    expect(await admin.evaluate(() => navigator.clipboard.readText())).toBe(firstLink);

    const row = rowOf(admin, /Bob Smith/);
    await row.waitFor();
    expect(await row.getByRole('combobox', { name: 'Role for Bob Smith' }).inputValue()).toBe('member');
    bob.id = (await usersNow()).find((user) => user.email === bob.email)!.id;
    expect(bob.id).toBeGreaterThan(0);
    // The form is empty again, ready for the next colleague.
    expect(await admin.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('');
    await expectAccessible(admin, '/admin/users with a setup link');
    await expectFitsWidth(admin, 375);
  });

  test('when the colleague opens the link in a browser of their own and sets a password, then they are signed in', async () => {
    colleague = await world.newPage();
    await colleague.goto(onGateway(firstLink));
    await heading(colleague, 'Set your password').waitFor();
    await colleague.getByLabel('New password').fill(PASSWORD);
    await colleague.getByRole('button', { name: 'Set password' }).click();
    await colleague.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(pathOf(colleague)).toBe('/issues');
    expect(await colleague.getByRole('banner').textContent()).toContain(bob.name);
    // A member's navigation has no Users page.
    expect(await colleague.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).count()).toBe(0);
  });

  test('when the admin makes the colleague an admin and a member again, then the row and the API agree each time', async () => {
    const role = admin.getByRole('combobox', { name: 'Role for Bob Smith' });
    await role.selectOption({ label: 'Admin' });
    await admin.getByRole('button', { name: 'Save role for Bob Smith' }).click();
    await statusSaying(admin, /Bob Smith is now an admin of the workspace/);
    expect((await usersNow()).find((user) => user.id === bob.id)!.role).toBe('admin');
    expect(await role.inputValue()).toBe('admin');

    await role.selectOption({ label: 'Member' });
    await admin.getByRole('button', { name: 'Save role for Bob Smith' }).click();
    await statusSaying(admin, /Bob Smith is now a member of the workspace/);
    expect((await usersNow()).find((user) => user.id === bob.id)!.role).toBe('member');
    await admin.getByRole('button', { name: 'Save role for Bob Smith' }).waitFor({ state: 'detached' });
  });

  test('when the only admin demotes themselves, then the refusal is told next to their row, and they stay an admin', async () => {
    const role = admin.getByRole('combobox', { name: 'Role for Ada Admin' });
    await role.selectOption({ label: 'Member' });
    await admin.getByRole('button', { name: 'Save role for Ada Admin' }).click();
    const refusal = rowOf(admin, /Ada Admin/).getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('You are the only active admin of the workspace, so you stay an admin. Make someone else an admin first.');
    expect(await role.inputValue()).toBe('admin');
    // The focus is back on the role, whose description holds the refusal.
    await focusOn(admin, 'Role for Ada Admin');
    expect(await descriptionOf(role)).toContain('only active admin');
    expect((await world.api(world.admin, 'GET', '/api/v1/me')).role).toBe('admin');
    await expectAccessible(admin, '/admin/users with a refusal');
  });

  test('when the admin makes a new setup link for the colleague, then a different link is shown, saying earlier ones no longer work', async () => {
    await rowOf(admin, /Bob Smith/)
      .getByRole('button', { name: /New setup link/ })
      .click();
    await admin.getByRole('heading', { level: 2, name: 'New setup link for Bob Smith' }).waitFor();
    const link = admin.getByRole('textbox', { name: 'Setup link' });
    const second = await link.inputValue();
    expect(second).toMatch(/\/setup#code=/);
    expect(second).not.toBe(firstLink);
    expect(await descriptionOf(link)).toContain('Their earlier links no longer work.');
    // The refusal shown before is gone once something else is done.
    expect(await rowOf(admin, /Ada Admin/).getByRole('alert').count()).toBe(0);
  });
});

describe('queues and their permissions', () => {
  test('when the admin creates a queue with a bad key by keyboard, then the problem is told next to "Key", which takes the focus, and nothing is created', async () => {
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Queues' }).click();
    await heading(admin, 'Queues').waitFor();
    expect(pathOf(admin)).toBe('/admin/queues');
    await admin.getByText('You see no queues yet.').waitFor();

    const key = admin.getByRole('textbox', { name: 'Key' });
    await key.fill('1OPS');
    await admin.getByRole('textbox', { name: 'Name' }).fill('Operations');
    await admin.getByRole('textbox', { name: 'Description' }).fill('Servers, deploys and on-call');
    await admin.getByRole('textbox', { name: 'Name' }).press('Enter');
    await focusIsOn(key);
    expect(await key.getAttribute('aria-invalid')).toBe('true');
    expect(await descriptionOf(key)).toContain('“1OPS” cannot be a key. A key is 2 to 12 letters, digits or _, starting with a letter');
    expect(await world.api(world.admin, 'GET', '/api/v1/queues')).toEqual([]);
  });

  test('when the key is right, then the queue is created and listed; the same key again is told next to "Key"', async () => {
    const key = admin.getByRole('textbox', { name: 'Key' });
    await key.fill('OPS');
    await admin.getByRole('button', { name: 'Create queue' }).click();
    await statusSaying(admin, /The queue OPS is created/);
    // The button kept the focus while the queue was being made: it never fell to the page.
    expect(await admin.evaluate(() => document.activeElement?.textContent)).toBe('Create queue');
    const row = rowOf(admin, /OPS/);
    await row.waitFor();
    expect(await row.textContent()).toContain('Servers, deploys and on-call');
    expect(await row.getByRole('link', { name: 'OPS', exact: true }).getAttribute('href')).toBe('/queues/OPS');
    expect(await key.getAttribute('aria-invalid')).toBeNull();

    await key.fill('ops');
    await admin.getByRole('textbox', { name: 'Name' }).fill('Another');
    await admin.getByRole('button', { name: 'Create queue' }).click();
    await admin.getByText('There is already a queue with the key OPS').waitFor();
    expect(await descriptionOf(key)).toContain('There is already a queue with the key OPS');
    await focusIsOn(key);
    expect(await world.api(world.admin, 'GET', '/api/v1/queues')).toHaveLength(1);
    await expectAccessible(admin, '/admin/queues with a queue');
    await expectFitsWidth(admin, 375);
  });

  test('when the admin opens the queue`s permissions, then they are there as an inherited admin, not revocable', async () => {
    await admin.getByRole('link', { name: 'Settings and permissions of OPS' }).click();
    await heading(admin, 'Permissions · OPS').waitFor();
    expect(pathOf(admin)).toBe('/queues/OPS/permissions');
    expect(await admin.title()).toBe('Permissions · OPS · Tracker');
    const me = rowOf(admin, /Ada Admin/);
    expect(await me.textContent()).toMatch(/Admin\s*inherited/);
    expect(await me.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    await admin.getByText('No role has been granted, changed or revoked on OPS yet.').waitFor();
  });

  test('when the admin grants the colleague a role, changes it and revokes it, then the table follows and the history lists each change', async () => {
    await admin.getByRole('combobox', { name: 'User' }).selectOption({ label: 'Bob Smith' });
    await admin.getByRole('combobox', { name: 'Role', exact: true }).selectOption({ label: 'Read only' });
    await admin.getByRole('button', { name: 'Grant' }).click();
    await statusSaying(admin, /Bob Smith now has Read only on OPS/);
    const role = admin.getByRole('combobox', { name: 'Role for Bob Smith' });
    expect(await role.inputValue()).toBe('read-only');
    const members = admin.getByRole('region', { name: 'Who has access' });
    expect(await members.getByRole('row', { name: /Bob Smith/ }).textContent()).toContain('Granted on this queue');

    await role.selectOption({ label: 'Admin' });
    await admin.getByRole('button', { name: 'Save role for Bob Smith' }).click();
    await statusSaying(admin, /Bob Smith now has Admin on OPS/);
    expect(await role.inputValue()).toBe('admin');
    await focusOn(admin, 'Role for Bob Smith');

    await members
      .getByRole('row', { name: /Bob Smith/ })
      .getByRole('button', { name: /Revoke/ })
      .click();
    await statusSaying(admin, /Bob Smith’s role on OPS is revoked/);
    await admin.getByRole('combobox', { name: 'Role for Bob Smith' }).waitFor({ state: 'detached' });
    expect(await admin.evaluate(() => document.activeElement?.textContent)).toBe('Who has access');

    const history = admin.getByRole('region', { name: 'History of changes' });
    const lines = await history.getByRole('row').allTextContents();
    expect(lines.slice(1).map((line) => line.replace(/^.*?(Bob Smith)/, '$1'))).toEqual([
      'Bob SmithGranted Read onlyAda Admin',
      'Bob SmithChanged from Read only to AdminAda Admin',
      'Bob SmithRevoked AdminAda Admin',
    ]);
    const permissions = await world.api(world.admin, 'GET', '/api/v1/queues/' + (await world.api(world.admin, 'GET', '/api/v1/queues'))[0].id + '/permissions');
    expect(permissions.members.map((member: { name: string }) => member.name)).toEqual(['Ada Admin']);
    expect(permissions.history_total).toBe(3);
    await expectAccessible(admin, '/queues/OPS/permissions with a history');
    await expectFitsWidth(admin, 375);
  });

  test('when the admin changes the queue`s settings, then they are saved', async () => {
    await admin.getByRole('textbox', { name: 'Name' }).fill('Operations team');
    await admin.getByRole('button', { name: 'Save settings' }).click();
    await statusSaying(admin, /The settings of OPS are saved/);
    const [queue] = await world.api(world.admin, 'GET', '/api/v1/queues');
    expect([queue.name, queue.description]).toEqual(['Operations team', 'Servers, deploys and on-call']);
  });

  test('when a queue has more changes than the newest 50, then the earlier ones are shown on asking, in order', async () => {
    const [queue] = await world.api(world.admin, 'GET', '/api/v1/queues');
    for (let i = 0; i < 50; i++) {
      await world.api(world.admin, 'PUT', `/api/v1/queues/${queue.id}/permissions/${bob.id}`, { role: i % 2 === 0 ? 'read-only' : 'read-write' });
    }
    await admin.reload();
    const history = admin.getByRole('region', { name: 'History of changes' });
    await history.getByText('3 earlier changes are not shown.').waitFor();
    expect(await history.getByRole('row').count()).toBe(1 + 50 + 1);
    await history.getByRole('button', { name: 'Show earlier changes' }).click();
    await history.getByRole('button', { name: 'Show earlier changes' }).waitFor({ state: 'detached' });
    // The button left with the gap; the focus is on the history, not lost.
    expect(await admin.evaluate(() => document.activeElement?.textContent)).toBe('History of changes');
    const lines = await history.getByRole('row').allTextContents();
    expect(lines).toHaveLength(1 + 53);
    expect(lines[1]).toContain('Granted Read only');
    expect(lines[3]).toContain('Revoked Admin');
    expect(lines[4]).toContain('Granted Read only');
    expect(lines[53]).toContain('Changed from Read only to Read and write');
  });

  test('when another admin renamed the queue meanwhile and the page reloads, then the settings show that name, and saving the description keeps it', async () => {
    const [queue] = await world.api(world.admin, 'GET', '/api/v1/queues');
    await world.api(world.admin, 'PATCH', `/api/v1/queues/${queue.id}`, { name: 'Operations, renamed elsewhere' });
    // Any change on the page reads the queue again: here, a grant.
    await admin.getByRole('combobox', { name: 'User' }).selectOption({ label: 'Bob Smith' });
    await admin.getByRole('combobox', { name: 'Role', exact: true }).selectOption({ label: 'Read only' });
    await admin.getByRole('button', { name: 'Grant' }).click();
    await statusSaying(admin, /Bob Smith now has/);
    const name = admin.getByRole('textbox', { name: 'Name' });
    expect(await admin.evaluate(() => document.activeElement?.textContent)).toBe('Grant');
    await eventually(async () => expect(await name.inputValue()).toBe('Operations, renamed elsewhere'));
    await admin.getByRole('textbox', { name: 'Description' }).fill('Servers and deploys');
    await admin.getByRole('button', { name: 'Save settings' }).click();
    await statusSaying(admin, /The settings of OPS are saved/);
    const [saved] = await world.api(world.admin, 'GET', '/api/v1/queues');
    expect([saved.name, saved.description]).toEqual(['Operations, renamed elsewhere', 'Servers and deploys']);
  });
});

describe('a member', () => {
  test('when the colleague opens Users, then they are told it is for admins, and see no people and no invite', async () => {
    await colleague.goto(`${world.system.gatewayUrl}/admin/users`);
    await heading(colleague, 'Users').waitFor();
    await colleague.getByText('This page is for the admins of Acme').waitFor();
    expect(await colleague.getByRole('table').count()).toBe(0);
    expect(await colleague.getByRole('button', { name: 'Invite' }).count()).toBe(0);
    await expectAccessible(colleague, '/admin/users as a member');
    await expectFitsWidth(colleague, 375);
  });

  test('when the colleague opens the permissions of a queue they only use, then they are told it is for its admins, and cannot grant', async () => {
    const [queue] = await world.api(world.admin, 'GET', '/api/v1/queues');
    await world.api(world.admin, 'DELETE', `/api/v1/queues/${queue.id}/permissions/${bob.id}`);
    await colleague.goto(`${world.system.gatewayUrl}/queues/OPS/permissions`);
    await colleague.getByText('There is no queue OPS, or it is hidden from you').waitFor();

    await world.api(world.admin, 'PUT', `/api/v1/queues/${queue.id}/permissions/${bob.id}`, { role: 'read-write' });
    await colleague.reload();
    await colleague.getByText(/is for its admins to decide/).waitFor();
    expect(await colleague.getByText('Your role on it is Read and write.').count()).toBe(1);
    expect(await colleague.getByRole('button', { name: 'Grant' }).count()).toBe(0);
    expect(await colleague.getByRole('combobox', { name: 'User' }).count()).toBe(0);
    expect(await colleague.getByRole('link', { name: 'Open the board of OPS' }).getAttribute('href')).toBe('/queues/OPS');
    await expectAccessible(colleague, '/queues/OPS/permissions as a member');
  });

  test('when the colleague lists the queues, then they see the board link but neither settings nor a way to create one', async () => {
    await colleague.goto(`${world.system.gatewayUrl}/admin/queues`);
    const row = rowOf(colleague, /OPS/);
    await row.waitFor();
    expect(await row.textContent()).toContain('Read and write');
    expect(await row.getByRole('link', { name: 'OPS', exact: true }).count()).toBe(1);
    expect(await colleague.getByRole('link', { name: /Settings and permissions/ }).count()).toBe(0);
    expect(await colleague.getByRole('button', { name: 'Create queue' }).count()).toBe(0);
  });
});

describe('the edges', () => {
  test('when a queue key names no queue, then the page says so in words', async () => {
    await admin.goto(`${world.system.gatewayUrl}/queues/nope/permissions`);
    await heading(admin, 'Permissions · NOPE').waitFor();
    await admin.getByText('There is no queue NOPE, or it is hidden from you').waitFor();
  });

  test('when the admin deactivates the colleague, then the colleague`s browser is signed out, and activating them lets them sign in again', async () => {
    await admin.goto(`${world.system.gatewayUrl}/admin/users`);
    await admin.getByRole('button', { name: 'Deactivate Bob Smith' }).click();
    await statusSaying(admin, /Bob Smith is deactivated/);
    expect(await rowOf(admin, /Bob Smith/).textContent()).toContain('Deactivated');
    expect((await usersNow()).find((user) => user.id === bob.id)!.active).toBe(false);
    await colleague.reload();
    await heading(colleague, 'Sign in').waitFor();

    await admin.getByRole('button', { name: 'Activate Bob Smith' }).click();
    await statusSaying(admin, /Bob Smith is active again/);
    await admin.getByRole('button', { name: 'Deactivate Bob Smith' }).waitFor();
    await signIn(colleague, world, { userId: bob.id, name: bob.name, email: bob.email, password: PASSWORD, token: '' }, '/admin/queues');
    await rowOf(colleague, /OPS/).waitFor();
  });

  test('no page broke its Content-Security-Policy', () => {
    expect(world.cspViolations).toEqual([]);
  });
});
