/**
 * CPU time of the machine's processes, grouped (gateway, issues, postgres, ...), sampled
 * from /proc while a measurement runs: which process pays how much of a request. Linux only.
 * Processes that start during the measurement count from zero (pgbench and its
 * Postgres backends); the last sample of a process that exits is kept.
 */
import fs from 'node:fs';

const TICKS_PER_SECOND = 100;

function groupOf(pid: string): string | null {
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    if (cmdline.includes('loader.ts')) return 'load generator';
    if (cmdline.includes('bare-server.ts')) return 'bare server';
    if (cmdline.includes('src/main.ts')) {
      const service = /services\/(\w+)/.exec(fs.readlinkSync(`/proc/${pid}/cwd`))?.[1];
      return service ?? null;
    }
    const comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (comm === 'pgbench') return 'pgbench';
    if (comm === 'postgres' || cmdline.startsWith('postgres')) return 'postgres';
    if (comm.startsWith('redis')) return 'redis';
    if (comm === 'beam.smp') return 'rabbitmq';
    return null;
  } catch {
    return null;
  }
}

function cpuSeconds(pid: string): number | null {
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

export function sampleCpu(intervalMs = 200): CpuSampler {
  const seen = new Map<string, { group: string; first: number; last: number }>();
  const poll = (initial: boolean) => {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const known = seen.get(pid);
      const cpu = cpuSeconds(pid);
      if (cpu === null) continue;
      if (known) known.last = cpu;
      else {
        const group = groupOf(pid);
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

/** "issues 1.20, postgres 0.90, ..." in ms per operation, largest first. */
export function perOperation(cpu: Map<string, number>, operations: number): { totalMs: number; text: string } {
  const entries = [...cpu.entries()].map(([g, s]) => [g, (s * 1000) / Math.max(1, operations)] as const).filter(([, ms]) => ms >= 0.01);
  entries.sort((a, b) => b[1] - a[1]);
  const totalMs = entries.reduce((sum, [, ms]) => sum + ms, 0);
  return { totalMs, text: entries.map(([g, ms]) => `${g} ${ms.toFixed(2)}`).join(', ') };
}

/** CPU per operation of named measurements over several runs: each run's total and the last breakdown. */
export function cpuTally() {
  const runs = new Map<string, number[]>();
  const notes = new Map<string, string>();
  return {
    async measure<T>(name: string, work: () => Promise<T>, operations: (result: T) => number): Promise<T> {
      const sampler = sampleCpu();
      const result = await work();
      const per = perOperation(sampler.stop(), operations(result));
      runs.set(name, [...(runs.get(name) ?? []), per.totalMs]);
      notes.set(name, per.text);
      return result;
    },
    runs: (name: string) => runs.get(name) ?? [],
    note: (name: string) => notes.get(name) ?? '',
  };
}
