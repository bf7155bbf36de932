import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '@tracker/testing';

/** The services that sign their calls (each with its own key). */
export type ServiceName = 'gateway' | 'access' | 'issues' | 'statistics' | 'agent' | 'notifications';
export const SERVICE_NAMES: ServiceName[] = ['gateway', 'access', 'issues', 'statistics', 'agent', 'notifications'];
/** Every service that runs as a process: the signers, and web (the pages' files; no key, no store). */
export type ProcessName = ServiceName | 'web';

export interface ServiceProcess {
  name: ProcessName;
  url: string;
  port: number;
  /** The service's /metrics listener (METRICS_PORT), e.g. `${metricsUrl}/metrics`. */
  metricsUrl: string;
  child: ChildProcess;
  /** Everything the process printed so far (JSON log lines). */
  output: () => string;
  /** Sends a signal and waits for the exit code (null if killed by a signal). */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

const REPO_ROOT = path.resolve(__dirname, '../../..');

/**
 * Starts a service the way `pnpm start` does (its compiled JavaScript, dist/main.js, built
 * by the suites' global setup; its own folder) and waits for /healthz.
 *
 * Ports are found free and then released for the service to bind, so another process
 * (a replica started beside it, another test file's service) may take one in between:
 * a service that could not bind a port starts again (its metrics port, and its port when
 * none was given, chosen anew), up to three times.
 */
export async function startService(
  name: ProcessName,
  env: Record<string, string>,
  options: { port?: number; readyTimeoutMs?: number; nodeArgs?: string[] } = {},
): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(name, env, options);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= 3) throw error;
    }
  }
}

/** A service that exited because a port it was given was taken meanwhile. */
class PortTakenError extends Error {}

async function startOnce(
  name: ProcessName,
  env: Record<string, string>,
  options: { port?: number; readyTimeoutMs?: number; nodeArgs?: string[] },
): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  // The system may hand the just-released port out again: two listeners on one port fail to start.
  let metricsPort = await freePort();
  while (metricsPort === port) metricsPort = await freePort();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), 'dist/main.js'], {
    cwd: path.join(REPO_ROOT, 'services', name),
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', ...env, PORT: String(port), METRICS_PORT: String(metricsPort), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 2_000_000) output = output.slice(-1_000_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  let finished = false;
  void exited.then(() => (finished = true));
  while (!(await healthy(url))) {
    if (finished || Date.now() > deadline) {
      child.kill('SIGKILL');
      const message = `${name} did not become healthy on port ${port}:\n${output.slice(-4000)}`;
      throw finished && /EADDRINUSE/.test(output) ? new PortTakenError(message) : new Error(message);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name,
    url,
    port,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (!finished) child.kill(signal);
      // A service that does not finish its graceful shutdown must not hang the test run.
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
    return res.ok;
  } catch {
    return false;
  }
}
