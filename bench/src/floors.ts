/**
 * The floors (floor-server.ts): the same round trips as a scenario's request with none of
 * the project's handling, each started on a free port and stopped with the run.
 */
import { startHelper, type BenchSystem } from './system';

/**
 * A floor (floor-server.ts `role` with its arguments after the port) behind the bare
 * proxy (or `proxyRole`), as a service sits behind the gateway: both URLs, stopped with the run.
 */
export async function startFloorChain(
  system: BenchSystem,
  role: string,
  args: string[],
  cleanups: Array<() => Promise<unknown>>,
  proxyRole = 'proxy',
): Promise<{ service: string; proxy: string }> {
  const service = await startFloorServer(role, args, cleanups);
  return { service, proxy: await startFloorProxy(system, proxyRole, service, cleanups) };
}

/** A floor server (floor-server.ts `role`) on a free port: its URL, stopped with the run. */
export async function startFloorServer(role: string, args: string[], cleanups: Array<() => Promise<unknown>>): Promise<string> {
  const { freePort } = await import('@tracker/testing');
  const port = await freePort();
  const server = await startHelper('floor-server.ts', [role, String(port), ...args]);
  cleanups.push(async () => server.kill('SIGTERM'));
  return `http://127.0.0.1:${port}`;
}

/** A floor proxy (floor-server.ts `proxy` or `express-proxy`) in front of `upstream`: its URL, stopped with the run. */
export function startFloorProxy(system: BenchSystem, role: string, upstream: string, cleanups: Array<() => Promise<unknown>>): Promise<string> {
  return startFloorServer(role, [upstream, system.env.REDIS_URL!], cleanups);
}
