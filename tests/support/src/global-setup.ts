import { execFileSync } from 'node:child_process';
import path from 'node:path';
import infrastructureSetup from '@tracker/testing/global-setup';

const REPO_ROOT = path.resolve(__dirname, '../../..');

/**
 * Global setup of the suites that start whole services (e2e, faults, security): the
 * shared infrastructure (libs/testing), then the services compiled as `pnpm start` and
 * the images run them (scripts/build.mjs), once per jest run, so these suites exercise
 * the JavaScript that ships.
 */
export default async function globalSetup(): Promise<void> {
  await infrastructureSetup();
  if (process.env.TRACKER_SERVICES_BUILT) return;
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/build.mjs')], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  process.env.TRACKER_SERVICES_BUILT = '1';
}
