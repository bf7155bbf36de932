import { createStatisticsService } from '../app';
import { loadStatisticsConfig } from '../config';

/**
 * `pnpm --filter @tracker/statistics run rebuild [-- --keep]`
 *
 * Rebuilds the replica from the issues service's snapshot while the service keeps
 * running and consuming events. By default from scratch: replicated rows are deleted
 * first and statistics answer 503 until the rebuild ends. `--keep` applies the snapshot
 * over the current rows instead (no 503; repairs missing or old rows, the revision
 * rule decides). Waits while another rebuild holds the lock. Prints one JSON line.
 */
async function main() {
  const args = process.argv.slice(2).filter((a) => a !== '--');
  const unknown = args.filter((a) => a !== '--keep');
  if (unknown.length > 0) {
    process.stderr.write(`usage: rebuild [--keep]\nunknown argument: ${unknown.join(' ')}\n`);
    process.exit(64);
  }
  const config = loadStatisticsConfig();
  const service = createStatisticsService(config);
  try {
    const result = await service.rebuild({ reset: !args.includes('--keep') });
    process.stdout.write(`${JSON.stringify({ ...result, snapshotAt: result?.snapshotAt.toISOString() })}\n`);
    process.exitCode = result?.completed ? 0 : 1;
  } finally {
    await service.close();
  }
}

main().catch((err) => {
  process.stderr.write(`rebuild failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
