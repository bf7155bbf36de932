import { spawn } from 'node:child_process';
import path from 'node:path';
import type { ServiceName } from '@tracker/system-tests-support';
import { freePort } from '@tracker/testing';
import { REPO_ROOT } from './seed';
import { rssMiB } from './system';

/** How a service is run: compiled (`pnpm start`, the images) or its sources through tsx (development). */
export type Build = 'compiled' | 'tsx';

const ENTRY: Record<Build, string[]> = {
  compiled: ['dist/main.js'],
  tsx: ['--import', 'tsx', 'src/main.ts'],
};

export interface StartupSample {
  /** From spawn to the first 200 from /readyz. */
  readyMs: number;
  /** Resident memory after `idleMs` of idling once ready. */
  idleRssMiB: number;
}

/**
 * Starts one more copy of a service beside the running system (its env, a port of its
 * own), times it to /readyz, lets it idle and reads its RSS, then stops it.
 */
export async function measureStartup(name: ServiceName, env: Record<string, string>, build: Build, idleMs = 3000): Promise<StartupSample> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ENTRY[build], {
    cwd: path.join(REPO_ROOT, 'services', name),
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env, LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    let readyMs = NaN;
    while (Number.isNaN(readyMs)) {
      if (child.exitCode !== null || performance.now() - started > 60_000) throw new Error(`${name} (${build}) did not become ready:\n${stderr}`);
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
      if (ok) readyMs = performance.now() - started;
      else await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, idleMs));
    return { readyMs, idleRssMiB: rssMiB(child.pid) };
  } finally {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}
