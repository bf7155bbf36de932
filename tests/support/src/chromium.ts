import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium (installed by scripts/bootstrap.sh; never a browser downloaded by
 * Playwright), started here with a fresh profile and driven by playwright-core over the
 * DevTools protocol. Every step that waits on the browser is bounded, and closing ends
 * the browser's process group by its pid whatever state it is in.
 */
export const CHROMIUM = process.env.TRACKER_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--remote-debugging-address=127.0.0.1',
  '--remote-debugging-port=0',
];

/** Rejects when `promise` takes longer than `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
    }),
  ]);
}

export interface RunningChromium {
  browser: Browser;
  pid: number;
  close: () => Promise<void>;
}

export async function launchChromium(): Promise<RunningChromium> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: run bash scripts/bootstrap.sh (it installs Debian's chromium)`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tracker-chromium-'));
  // Its own process group, so the renderers and helpers go with it.
  const child: ChildProcess = spawn(CHROMIUM, [...ARGS, `--user-data-dir=${profile}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  const endpoint = new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code, signal) => reject(new Error(`Chromium exited (${signal ?? code}) before it listened:\n${stderr.slice(-2000)}`)));
    child.once('error', reject);
  });
  const kill = async () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await within(exited, 5_000, 'Chromium exiting').catch(() => undefined);
    fs.rmSync(profile, { recursive: true, force: true });
  };
  try {
    const browser = await chromium.connectOverCDP(await within(endpoint, 30_000, 'Chromium starting'), { timeout: 30_000 });
    return {
      browser,
      pid: child.pid!,
      async close() {
        await within(browser.close(), 10_000, 'closing the browser').catch(() => undefined);
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          // already gone
        }
        const ended = await within(exited, 5_000, 'Chromium exiting').then(
          () => true,
          () => false,
        );
        if (!ended) await kill();
        else fs.rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await kill();
    throw error;
  }
}
