import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Page } from 'playwright-core';
import { startSystem, type System } from '@tracker/system-tests-support';
import { launchChromium, within, type RunningChromium } from '@tracker/system-tests-support/chromium';

/**
 * What every browser test file starts from: the whole system (every service a process,
 * through the gateway), Debian's Chromium, and a workspace whose first admin has set a
 * password. People are added as an admin invites them (their setup link, their password
 * set), so each test signs in through the pages as a person would; the data a test needs
 * beforehand is made through /api/v1 with the person's own token.
 */
export const PASSWORD = 'correct horse battery staple';
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export interface Person {
  userId: number;
  name: string;
  email: string;
  password: string;
  /** A personal token of theirs, for making a test's data through /api/v1 (never used by the page). */
  token: string;
}

export interface World {
  system: System;
  chromium: RunningChromium;
  /** The workspace's first admin, password set. */
  admin: Person;
  /** Every Content-Security-Policy refusal any page of this world logged. */
  cspViolations: string[];
  /** /api/v1 with a person's token; throws unless the answer is 2xx. */
  api: <T = any>(person: Person, method: string, path: string, body?: unknown) => Promise<T>;
  /** A colleague invited by the admin with `role`, their password set through their setup link. */
  invite: (name: string, role?: 'admin' | 'member') => Promise<Person>;
  /** A fresh browser (its own cookies) with one page, 1280 wide. */
  newPage: () => Promise<Page>;
  close: () => Promise<void>;
}

const unique = () => Math.random().toString(36).slice(2, 8);

/** An /auth call as the page on the gateway's origin makes it. */
function authCall(system: System, path: string, body?: unknown, cookie?: string) {
  const headers: Record<string, string> = { origin: system.gatewayUrl, 'sec-fetch-site': 'same-origin' };
  if (cookie) headers.cookie = `trk_session=${cookie}`;
  return system.api('POST', path, { body, headers });
}

/** Sets the password through a setup link, then makes the person a personal token through their session. */
async function completeSetup(system: System, setupUrl: string): Promise<string> {
  const code = new URL(setupUrl).hash.replace(/^#code=/, '');
  const setUp = await authCall(system, '/auth/setup', { code, password: PASSWORD });
  if (setUp.status !== 204) throw new Error(`setting a password: ${setUp.status} ${JSON.stringify(setUp.body)}`);
  const cookie = /^trk_session=([^;]+);/.exec(setUp.headers.get('set-cookie') ?? '')![1]!;
  const session = await authCall(system, '/auth/token', undefined, cookie);
  const made = await system.api('POST', '/api/v1/tokens', { token: session.body.access_token, body: { name: 'test data', expires_in_days: 30 } });
  if (made.status !== 201) throw new Error(`making a token: ${made.status} ${JSON.stringify(made.body)}`);
  await authCall(system, '/auth/sign-out', undefined, cookie);
  return made.body.token as string;
}

export async function openWorld(options: { gatewayEnv?: Record<string, string> } = {}): Promise<World> {
  const [system, chromium] = await Promise.all([startSystem({ gatewayEnv: options.gatewayEnv }), launchChromium()]);
  const cspViolations: string[] = [];
  const contexts: BrowserContext[] = [];

  const api = async (person: Person, method: string, path: string, body?: unknown) => {
    const res = await system.api(method, path, { token: person.token, body });
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  const email = `ada-${unique()}@example.com`;
  const ws = await system.admin('workspace', 'create', '--name', 'Acme', '--admin-name', 'Ada Admin', '--admin-email', email);
  const admin: Person = { userId: ws.user_id, name: 'Ada Admin', email, password: PASSWORD, token: ws.token };
  admin.token = await completeSetup(system, ws.setup_url);

  return {
    system,
    chromium,
    admin,
    cspViolations,
    api,
    async invite(name, role = 'member') {
      const personEmail = `${name.toLowerCase().replace(/\W+/g, '-')}-${unique()}@example.com`;
      const invited = await api(admin, 'POST', '/api/v1/users', { name, email: personEmail, role });
      const token = await completeSetup(system, invited.setup_url);
      return { userId: invited.id, name, email: personEmail, password: PASSWORD, token };
    },
    async newPage() {
      const context = await within(chromium.browser.newContext({ viewport: { width: 1280, height: 800 } }), 15_000, 'a new browser context');
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.setDefaultNavigationTimeout(20_000);
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
      });
      return page;
    },
    /** Stops the browser and the system; then fails the file if any page broke its Content-Security-Policy. */
    async close() {
      await chromium.close();
      await system.stop();
      if (cspViolations.length > 0) throw new Error(`pages broke their Content-Security-Policy:\n${cspViolations.join('\n')}`);
    },
  };
}

/** Signs `person` in through the sign-in page, starting at `path` (the page it sends them back to). */
export async function signIn(page: Page, world: World, person: Person, path = '/issues'): Promise<void> {
  await page.goto(`${world.system.gatewayUrl}${path}`);
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await page.getByRole('textbox', { name: 'Email' }).fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === path.split('?')[0]);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** axe on the page as it is now: no violation of WCAG 2.1 A or AA. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  const results = await within(new AxeBuilder({ page }).withTags(WCAG).analyze(), 30_000, `axe on ${where}`);
  expect({ where, violations: results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`) }).toEqual({ where, violations: [] });
}

/** Nothing wider than the window at `width` (no sideways scrolling of the page), then back to 1280. */
export async function expectFitsWidth(page: Page, width = 375): Promise<void> {
  await page.setViewportSize({ width, height: 800 });
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth).toBeLessThanOrEqual(width);
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** The page's level-1 heading with this name. */
export const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });

/** The path and query shown in the address bar. */
export const pathOf = (page: Page) => {
  const url = new URL(page.url());
  return url.pathname + url.search;
};

/** Runs `check` until it passes (a page that searches or reloads a moment after a change), at most `ms`. */
export async function eventually(check: () => Promise<void>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
}

/** A named region of the page: an issue's Comments or History, a board's column. */
export const region = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

/** A board's column: the region named after its status. */
export const column = (page: Page, status: string) => region(page, status);

/** A board's card, in the column of `status`. */
export const card = (page: Page, status: string, key: string) => column(page, status).getByRole('listitem').filter({ has: page.getByRole('link', { name: key, exact: true }) });

/** The keys of a column's cards, top to bottom. */
export const keysIn = async (page: Page, status: string) => (await column(page, status).getByRole('listitem').getByRole('link').allTextContents()).map((key) => key.trim());

/** An issue as the API has it now, read by the admin. */
export const readIssue = (world: World, key: string) => world.api(world.admin, 'GET', `/api/v1/issues/${key}`);

const LIVE_STREAM = '**/api/v1/events/stream**';

/**
 * The page without the live stream (offline, or a change not yet told): it holds what it
 * read, which is what a write then meets. Undone by `withLiveStream`.
 */
export const withoutLiveStream = (page: Page) => page.route(LIVE_STREAM, (route) => route.abort());
export const withLiveStream = (page: Page) => page.unroute(LIVE_STREAM);
