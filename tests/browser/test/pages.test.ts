import type { BrowserContext, Page } from 'playwright-core';
import { startSystem, type System } from '@tracker/system-tests-support';
import { launchChromium, within, type RunningChromium } from '@tracker/system-tests-support/chromium';
import { expectAccessible as axeOn, expectFitsWidth as fitsAt, heading as headingOf, pathOf as pathShown, PASSWORD } from './world';

/**
 * The web pages as a person meets them, in Chromium, through the gateway with every
 * service a process: the first admin from the operator's command line opens their setup
 * link, sets a password, makes a personal token and sees it once, copies it, revokes it,
 * signs out and in again; mistakes are told in words. Only accessible locators (role and
 * name, label); axe checks every page against WCAG 2.1 A and AA.
 */

const expectAccessible = (where: string) => axeOn(page, where);
const expectFitsWidth = (width: number) => fitsAt(page, width);
const heading = (name: string) => headingOf(page, name);
const pathOf = () => pathShown(page);

let system: System;
let chromium: RunningChromium;
let context: BrowserContext;
let page: Page;
let admin: { email: string; setupUrl: string };
const cspViolations: string[] = [];

beforeAll(async () => {
  [system, chromium] = await Promise.all([startSystem(), launchChromium()]);
  context = await within(chromium.browser.newContext({ viewport: { width: 1280, height: 800 } }), 15_000, 'a new browser context');
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: system.gatewayUrl });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.setDefaultNavigationTimeout(20_000);
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
  const email = `ada-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const ws = await system.admin('workspace', 'create', '--name', 'Acme', '--admin-name', 'Ada', '--admin-email', email);
  // The link names the public address the operator configured; here the gateway of this system.
  admin = { email, setupUrl: `${system.gatewayUrl}/setup${new URL(ws.setup_url).hash}` };
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await system?.stop();
}, 60_000);


describe('the first admin, from the setup link to a personal token and back', () => {
  test('when the setup link is opened, then the page asks for a new password, the code leaves the address bar, and the page is accessible at both widths', async () => {
    const response = await page.goto(admin.setupUrl);
    expect(response!.status()).toBe(200);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(headers['x-frame-options']).toBe('DENY');
    await expect(heading('Set your password').isVisible()).resolves.toBe(true);
    expect(await page.title()).toBe('Set your password · Tracker');
    expect(page.url()).not.toContain('code=');
    await expectAccessible('/setup');
    await expectFitsWidth(375);
  });

  test('when they set a password, then they are signed in on the issues, and the main navigation takes them to their personal tokens', async () => {
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await heading('Issues').waitFor();
    expect(pathOf()).toBe('/issues');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Personal tokens' }).click();
    await heading('Personal tokens').waitFor();
    expect(pathOf()).toBe('/settings/tokens');
    expect(await page.title()).toBe('Personal tokens · Tracker');
    // The token the operator's command printed is theirs too, listed under its name.
    await page.getByRole('row', { name: /created by operator/ }).waitFor();
    // The session cookie is HttpOnly, and the page keeps its token in memory alone.
    expect(await page.evaluate(() => [document.cookie, localStorage.length, sessionStorage.length])).toEqual(['', 0, 0]);
    await expectAccessible('/settings/tokens');
    await expectFitsWidth(375);
  });

  let secret = '';

  test('when they make a token, then its secret is shown once, read-only, copies to the clipboard, and works', async () => {
    await page.getByRole('textbox', { name: 'Token name' }).fill('ci pipeline');
    await page.getByRole('combobox', { name: 'Expires' }).selectOption({ label: '30 days' });
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByRole('textbox', { name: 'New token' });
    await shown.waitFor();
    secret = await shown.inputValue();
    expect(secret).toMatch(/^trk_[A-Za-z0-9]{20,}$/);
    expect(await shown.getAttribute('readonly')).not.toBeNull();
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('status').filter({ hasText: 'copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    const row = page.getByRole('row', { name: /ci pipeline/ });
    await row.waitFor();
    expect(await row.textContent()).toContain(secret.slice(0, 10));
    expect((await system.api('GET', '/api/v1/me', { token: secret })).status).toBe(200);
    await expectAccessible('/settings/tokens with a new token');
    await expectFitsWidth(375);
  });

  test('when the page is loaded again, then the secret is not shown any more, and the token is listed by name and prefix', async () => {
    await page.reload();
    await page.getByRole('row', { name: /ci pipeline/ }).waitFor();
    expect(await page.getByRole('textbox', { name: 'New token' }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
  });

  test('the agent section names the MCP endpoint on this origin and a client configuration', async () => {
    const section = page.getByRole('region', { name: 'Connect an AI agent' });
    expect(await section.textContent()).toContain(`${system.gatewayUrl}/mcp`);
    expect(await section.getByRole('figure', { name: 'Client configuration' }).textContent()).toContain('"mcpServers"');
  });

  test('when they revoke it, then it leaves the list and stops working at once', async () => {
    await page.getByRole('button', { name: 'Revoke ci pipeline' }).click();
    await page.getByRole('status').filter({ hasText: 'revoked' }).waitFor();
    await page.getByRole('row', { name: /ci pipeline/ }).waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /created by operator/ }).waitFor();
    expect((await system.api('GET', '/api/v1/me', { token: secret })).status).toBe(401);
  });

  test('when they sign out, then the signed-in pages send them to sign in, and back where they were after', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    await page.goto(`${system.gatewayUrl}/settings/tokens`);
    await heading('Sign in').waitFor();
    expect(pathOf()).toBe('/sign-in?next=%2Fsettings%2Ftokens');
    expect(await page.title()).toBe('Sign in · Tracker');
    await expectAccessible('/sign-in');
    await expectFitsWidth(375);
  });

  test('when the password is wrong, then the page says so in words, next to the form', async () => {
    await page.getByRole('textbox', { name: 'Email' }).fill(admin.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/email or password is not right/);
    await expectAccessible('/sign-in with a problem');
  });

  test('when they sign in again, then they are back on their tokens', async () => {
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Personal tokens').waitFor();
    expect(pathOf()).toBe('/settings/tokens');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  test('when the used setup link is opened again, then setting a password is refused in words: ask an admin for a new link', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    await page.goto(admin.setupUrl);
    await page.getByLabel('New password').fill('another good passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/expired or has already been used\. Ask an admin for a new link/);
    await expectAccessible('/setup with a stale link');
  });
});

describe('every page', () => {
  test('a path that is no page shows the not-found page with a 404, accessible at both widths', async () => {
    const response = await page.goto(`${system.gatewayUrl}/no/such/page`);
    expect(response!.status()).toBe(404);
    await heading('Page not found').waitFor();
    expect(await page.title()).toBe('Page not found · Tracker');
    await expectAccessible('the not-found page');
    await expectFitsWidth(375);
  });

  test('works by keyboard: Tab reaches each field and the button in order, with a visible focus ring', async () => {
    await page.goto(`${system.gatewayUrl}/sign-in`);
    await heading('Sign in').waitFor();
    const focused = () => page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const style = getComputedStyle(el);
      return { name: el.id || el.textContent, outline: style.outlineStyle !== 'none' && style.outlineWidth !== '0px' };
    });
    const seen = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Tab');
      seen.push(await focused());
    }
    expect(seen).toEqual([
      { name: 'email', outline: true },
      { name: 'password', outline: true },
      { name: 'Sign in', outline: true },
    ]);
    // Enter submits from the keyboard alone.
    await page.getByRole('textbox', { name: 'Email' }).focus();
    await page.keyboard.type(admin.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await heading('Issues').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
  });

  test('no page broke its Content-Security-Policy', () => {
    expect(cspViolations).toEqual([]);
  });
});
