import { someIssues } from '../issue-picks';
import { EXPLAINS } from '../rows';
import type { Bench } from '../run';
import { median, percentile } from '../stats';
import { LOAD_STEPS, measureWebPage } from '../web-page';

/** The issue page's loads measured (and the API read beside each). */
const PAGE_LOADS = 20;
/** The JavaScript a first visit may load, gzipped (the web interface's budget). */
const SCRIPT_BUDGET_KB = 150;

/**
 * The web page (web-page.ts): the JavaScript and CSS a first visit loads, gzipped (and as
 * sent: brotli), against a budget of 150 KB of gzipped JavaScript; and the time from navigation to
 * an issue's page showing its comments, p50 and p95 over 20 loads in headless Chromium,
 * against the same issue read alone by GET /api/v1/issues/{key} in the same page, in turn.
 * The page's time is the API read's plus the HTML, the session's token, React drawing it.
 */
export async function b11(bench: Bench) {
  const { system, row } = bench;
  const [issue] = await someIssues(system, 1, 11);
  const comment = `B11 comment ${Date.now()}`;
  const posted = await fetch(`${system.gateway.url}/api/v1/issues/${issue!.key}/comments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${system.seeded.token}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ body: comment }),
  });
  if (posted.status !== 201) throw new Error(`B11: a comment on ${issue!.key}: ${posted.status} ${await posted.text()}`);
  const figures = await measureWebPage(system, { key: issue!.key, comment }, system.seeded.token, PAGE_LOADS);
  const kb = (bytes: number) => bytes / 1024;
  const scenario = 'B11 web page (an issue, first visit and again)';
  row({
    scenario,
    metric: 'JavaScript KB, gzipped, first visit',
    runs: [kb(figures.scriptBytes.gzipped)],
    ceilingName: 'budget KB',
    ceiling: SCRIPT_BUDGET_KB,
    target: '≤ 1× the budget',
    met: (_v, r) => r! <= 1,
    note: `${figures.scriptBytes.files} file(s), ${kb(figures.scriptBytes.unpacked).toFixed(0)} KB unpacked, ${kb(figures.scriptBytes.sent).toFixed(1)} KB as sent (brotli)`,
  });
  row({
    scenario,
    metric: 'CSS KB, gzipped, first visit',
    runs: [kb(figures.styleBytes.gzipped)],
    ceilingName: '–',
    ceiling: null,
    target: EXPLAINS,
    met: () => null,
    note: `${figures.styleBytes.files} file(s), ${kb(figures.styleBytes.unpacked).toFixed(0)} KB unpacked, ${kb(figures.styleBytes.sent).toFixed(1)} KB as sent (brotli)`,
  });
  for (const [name, at] of [
    ['p50', 50],
    ['p95', 95],
  ] as const) {
    row({
      scenario,
      metric: `navigation to comments shown, ${name} ms (${PAGE_LOADS} loads)`,
      value: percentile(figures.pageMs, at),
      runs: figures.pageMs,
      ceilingName: `GET /api/v1/issues/{key} alone ${name} ms`,
      ceiling: percentile(figures.apiMs, at),
      target: EXPLAINS,
      met: () => null,
      note: name === 'p50' ? `medians from navigation: ${LOAD_STEPS.map((step) => `${step} ${median(figures.steps[step]).toFixed(0)} ms`).join(', ')}` : undefined,
    });
  }
}

