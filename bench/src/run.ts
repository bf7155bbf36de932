/** What every scenario is given (main.ts builds it from the command line), and its voice. */
import type { CpuScope } from './cpu';
import type { RowInput } from './rows';
import type { BenchSystem } from './system';

export interface Bench {
  system: BenchSystem;
  /** `--quick`: fewer and shorter runs. */
  quick: boolean;
  /** Runs per figure, and seconds of load in each. */
  runs: number;
  seconds: number;
  /** Issues in the seeded workspace (`--issues`, `--large`). */
  issues: number;
  databaseUrl: string;
  amqpUrl: string;
  /** The processes CPU is counted for: this run's (see cpu.ts), not other runs' on the machine. */
  cpuScope: CpuScope;
  /** Whether the run measures `scenario` (`--only`, or every scenario without it). */
  wants: (scenario: string) => boolean;
  /** Run when the run ends or is interrupted: helper processes stopped, their files removed. */
  cleanups: Array<() => Promise<unknown>>;
  /** Adds a row to the run's table (rows.ts). */
  row: (r: RowInput) => void;
}

export const say = (text: string) => process.stderr.write(`[bench] ${text}\n`);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
