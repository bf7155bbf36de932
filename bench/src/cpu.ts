/**
 * CPU time of the machine's processes, grouped (gateway, agent, issues, postgres, ...),
 * sampled from /proc while a measurement runs: which process pays how much of a request.
 * Linux only. Processes that start during the measurement count from zero (pgbench and
 * its Postgres backends); the last sample of a process that exits is kept.
 *
 * Only this run's processes count: Node processes and pgbench that this process started
 * (other test runs on the machine start services with the same names), and Postgres
 * backends of the bench database (besides the server's own background processes). Redis
 * and RabbitMQ are shared servers and counted whole.
 */
import fs from 'node:fs';

const TICKS_PER_SECOND = 100;

/** The group of the bench's own load generator, whose CPU is not the system's. */
export const LOAD_GENERATOR = 'load generator';

/** Which processes are this run's: children of `parentPid`, backends of `database`. */
export interface CpuScope {
  parentPid: number;
  database?: string;
}

function groupOf(pid: string, scope: CpuScope): string | null {
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    const comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (comm === 'postgres' || cmdline.startsWith('postgres')) {
      // A backend's title: "postgres: 15/main: <user> <database> <host> <state>".
      const database = /^postgres: [^:]+: (\S+) (\S+) \S+\(\d+\)/.exec(cmdline)?.[2] ?? /^postgres: [^:]+: (\S+) (\S+) \[local\]/.exec(cmdline)?.[2];
      return database && scope.database && database !== scope.database ? null : 'postgres';
    }
    if (comm.startsWith('redis')) return 'redis';
    if (comm === 'beam.smp') return 'rabbitmq';
    if (parentOf(pid) !== scope.parentPid) return null;
    if (comm === 'pgbench') return 'pgbench';
    if (cmdline.includes('loader.ts')) return LOAD_GENERATOR;
    if (cmdline.includes('bare-server.ts')) return 'bare server';
    if (cmdline.includes('floor-server.ts')) return `floor ${/floor-server\.ts ([\w-]+)/.exec(cmdline)?.[1] ?? 'server'}`;
    if (cmdline.includes('dist/main.js') || cmdline.includes('src/main.ts')) {
      const service = /services\/(\w+)/.exec(fs.readlinkSync(`/proc/${pid}/cwd`))?.[1];
      return service ?? null;
    }
    return null;
  } catch {
    return null;
  }
}

function parentOf(pid: string): number | null {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  } catch {
    return null;
  }
}

/** CPU seconds (user and system) a process has used so far, or null when it is gone. */
export function cpuSeconds(pid: string): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

export interface CpuSampler {
  /** CPU seconds per group since start. */
  stop(): Map<string, number>;
}

export function sampleCpu(scope: CpuScope = { parentPid: process.pid }, intervalMs = 200): CpuSampler {
  const seen = new Map<string, { group: string; first: number; last: number }>();
  const poll = (initial: boolean) => {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const known = seen.get(pid);
      const cpu = cpuSeconds(pid);
      if (cpu === null) continue;
      if (known) known.last = cpu;
      else {
        const group = groupOf(pid, scope);
        if (group) seen.set(pid, { group, first: initial ? cpu : 0, last: cpu });
      }
    }
  };
  poll(true);
  const timer = setInterval(() => poll(false), intervalMs);
  return {
    stop() {
      clearInterval(timer);
      poll(false);
      const byGroup = new Map<string, number>();
      for (const { group, first, last } of seen.values()) byGroup.set(group, (byGroup.get(group) ?? 0) + last - first);
      return byGroup;
    },
  };
}

/**
 * "issues 1.20, postgres 0.90, ..." in ms per operation, largest first; the total, and
 * the total without the load generator (what serving the requests cost).
 */
export function perOperation(cpu: Map<string, number>, operations: number): { totalMs: number; servingMs: number; byGroup: Map<string, number>; text: string } {
  const entries = [...cpu.entries()].map(([g, s]) => [g, (s * 1000) / Math.max(1, operations)] as const).filter(([, ms]) => ms >= 0.01);
  entries.sort((a, b) => b[1] - a[1]);
  const totalMs = entries.reduce((sum, [, ms]) => sum + ms, 0);
  const servingMs = entries.filter(([g]) => g !== LOAD_GENERATOR).reduce((sum, [, ms]) => sum + ms, 0);
  return { totalMs, servingMs, byGroup: new Map(entries), text: entries.map(([g, ms]) => `${g} ${ms.toFixed(2)}`).join(', ') };
}

/**
 * `cpu` with `seconds` taken off `group`'s CPU (never below 0): what a process spent that
 * is not the measured work's, such as the load generator's start-up.
 */
export function leaveOut(cpu: ReadonlyMap<string, number>, group: string, seconds: number): Map<string, number> {
  const left = new Map(cpu);
  if (left.has(group)) left.set(group, Math.max(0, left.get(group)! - seconds));
  return left;
}

/** CPU per operation of named measurements over several runs: each run's total and the last breakdown. */
export function cpuTally(scope: CpuScope = { parentPid: process.pid }) {
  const runs = new Map<string, number[]>();
  const serving = new Map<string, number[]>();
  const groups = new Map<string, Array<Map<string, number>>>();
  const notes = new Map<string, string>();
  return {
    /** `startupMs`: the load generator's CPU before its load began (loader.ts reports it), left out of its share. */
    async measure<T>(name: string, work: () => Promise<T>, operations: (result: T) => number, startupMs?: (result: T) => number): Promise<T> {
      const sampler = sampleCpu(scope);
      const result = await work();
      const sampled = sampler.stop();
      const per = perOperation(startupMs ? leaveOut(sampled, LOAD_GENERATOR, startupMs(result) / 1000) : sampled, operations(result));
      runs.set(name, [...(runs.get(name) ?? []), per.totalMs]);
      serving.set(name, [...(serving.get(name) ?? []), per.servingMs]);
      groups.set(name, [...(groups.get(name) ?? []), per.byGroup]);
      notes.set(name, per.text);
      return result;
    },
    runs: (name: string) => runs.get(name) ?? [],
    /** Each run's CPU per operation without the load generator's. */
    servingRuns: (name: string) => serving.get(name) ?? [],
    /** Each run's CPU per operation of one group of processes (0 where it used none). */
    groupRuns: (name: string, group: string) => (groups.get(name) ?? []).map((byGroup) => byGroup.get(group) ?? 0),
    note: (name: string) => notes.get(name) ?? '',
  };
}
