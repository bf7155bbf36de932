import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { launchChromium, within } from '@tracker/system-tests-support/chromium';
import type { BenchSystem } from './system';

/**
 * B11's measurements in Debian's Chromium (headless, driven by playwright-core), through
 * the gateway as a person's browser meets the page:
 * - the bytes the first visit loads: every script and style sheet from opening an issue's
 *   address with an empty cache to its page shown (through the sign-in page), as sent
 *   (compressed: the body's size on the wire) and unpacked;
 * - the time from navigation to the issue's page showing its comments, `loads` times (the
 *   browser's cache warm, as for a person coming back: the hashed assets are cached a year),
 *   and in turn, in the same page, the same issue read alone by `GET /api/v1/issues/{key}`
 *   with fetch (the API's part of it, without the page).
 */
export interface WebPageFigures {
  scriptBytes: { sent: number; gzipped: number; unpacked: number; files: number };
  styleBytes: { sent: number; gzipped: number; unpacked: number; files: number };
  /** Navigation to the comments shown, ms, one per load. */
  pageMs: number[];
  /** GET /api/v1/issues/{key} alone, ms, one per load. */
  apiMs: number[];
  /** Where each load's time went: ms from navigation to each step's end (Navigation and Resource Timing). */
  steps: Record<LoadStep, number[]>;
}

/** The steps of a load, in order: the HTML and scripts run, who is signed in, the page's token, the issue read. */
export const LOAD_STEPS = ['app started', 'session read', 'token issued', 'issue read'] as const;
export type LoadStep = (typeof LOAD_STEPS)[number];

export async function measureWebPage(
  system: Pick<BenchSystem, 'gateway' | 'person'>,
  issue: { key: string; comment: string },
  apiToken: string,
  loads: number,
): Promise<WebPageFigures> {
  const chromium = await launchChromium();
  try {
    const context = await within(chromium.browser.newContext({ viewport: { width: 1280, height: 800 } }), 15_000, 'a new browser context');
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const issueUrl = `${system.gateway.url}/issues/${encodeURIComponent(issue.key)}`;

    // The first visit, the cache empty: the issue's address, the sign-in page it sends a
    // person to, and the issue's page it comes back to, shown with its comments. Every
    // script and style sheet of it counts.
    // `sent` is what came over the wire (brotli, as Chromium takes it); `gzipped` the same files
    // gzipped (level 9, as the web service stores them), what the budget is stated in.
    const bytes = { script: { sent: 0, gzipped: 0, unpacked: 0, files: 0 }, stylesheet: { sent: 0, gzipped: 0, unpacked: 0, files: 0 } };
    const counted: Array<Promise<void>> = [];
    page.on('requestfinished', (request) => {
      const type = request.resourceType();
      if (type !== 'script' && type !== 'stylesheet') return;
      counted.push(
        (async () => {
          const [sizes, response] = await Promise.all([request.sizes(), request.response()]);
          const body = await response!.body();
          bytes[type].sent += sizes.responseBodySize;
          bytes[type].unpacked += body.length;
          bytes[type].gzipped += gzipSync(body, { level: 9 }).length;
          bytes[type].files += 1;
        })(),
      );
    });
    await page.goto(issueUrl);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByRole('textbox', { name: 'Email' }).fill(system.person.email);
    await page.getByLabel('Password').fill(system.person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await commentsShown(page, issue.comment);
    await Promise.all(counted);
    const firstLoad = structuredClone(bytes);

    const pageMs: number[] = [];
    const apiMs: number[] = [];
    const steps = Object.fromEntries(LOAD_STEPS.map((step) => [step, [] as number[]])) as Record<LoadStep, number[]>;
    for (let n = 0; n < loads; n++) {
      const started = performance.now();
      await page.goto(issueUrl, { waitUntil: 'commit' });
      await commentsShown(page, issue.comment);
      pageMs.push(performance.now() - started);
      const timings = (await page.evaluate(stepTimings(issue.key))) as Record<LoadStep, number>;
      for (const step of LOAD_STEPS) steps[step].push(timings[step]);
      apiMs.push(
        await page.evaluate(
          // Every API answer is Cache-Control: no-store: each read goes to the server.
          async ({ key, token }) => {
            const t0 = performance.now();
            const res = await fetch(`/api/v1/issues/${encodeURIComponent(key)}`, { headers: { Authorization: `Bearer ${token}` } });
            await res.json();
            if (!res.ok) throw new Error(`GET /api/v1/issues/${key}: ${res.status}`);
            return performance.now() - t0;
          },
          { key: issue.key, token: apiToken },
        ),
      );
    }
    return { scriptBytes: firstLoad.script, styleBytes: firstLoad.stylesheet, pageMs, apiMs, steps };
  } finally {
    await chromium.close();
  }
}

/**
 * The page's own timings of a load, as a script run in the page: a string, so the bench's
 * compiler adds nothing to it (its helpers do not exist in the page).
 */
function stepTimings(key: string): string {
  return `(() => {
    const ended = (path) => performance.getEntriesByType('resource').find((e) => new URL(e.name).pathname === path)?.responseEnd ?? NaN;
    const navigation = performance.getEntriesByType('navigation')[0];
    return {
      'app started': navigation.domContentLoadedEventEnd,
      'session read': ended('/auth/session'),
      'token issued': ended('/auth/token'),
      'issue read': ended(${JSON.stringify(`/api/v1/issues/${encodeURIComponent(key)}`)}),
    };
  })()`;
}

/** The issue's page with its comments drawn: the Comments list holds the comment's text. */
async function commentsShown(page: Page, comment: string): Promise<void> {
  await page.getByRole('region', { name: 'Comments' }).getByText(comment).first().waitFor();
}
