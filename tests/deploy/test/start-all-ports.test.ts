import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * The ports `pnpm start` (scripts/start-all.mjs) gives the services: a service moved with
 * <NAME>_PORT takes its /metrics listener with it (port + 1000) unless <NAME>_METRICS_PORT
 * says otherwise, so a second copy with moved ports collides with nothing of the first.
 */
const ROOT = path.resolve(__dirname, '../../..');
type Env = Record<string, string | undefined>;
type Ports = Record<'gateway' | 'access' | 'issues' | 'statistics' | 'agent' | 'notifications' | 'web', { port: number; metricsPort: number }>;
// CommonJS, so jest loads it as it is; typed here.
const { listenPorts, upstreamUrls }: { listenPorts: (env: Env) => Ports; upstreamUrls: (ports: Ports, env: Env) => Record<string, string> } = require(
  path.join(ROOT, 'scripts/start-all-ports.cjs'),
);

const DEFAULTS: Ports = {
  access: { port: 8081, metricsPort: 9081 },
  issues: { port: 8082, metricsPort: 9082 },
  statistics: { port: 8083, metricsPort: 9083 },
  agent: { port: 8084, metricsPort: 9084 },
  notifications: { port: 8086, metricsPort: 9086 },
  web: { port: 8085, metricsPort: 9085 },
  gateway: { port: 8080, metricsPort: 9080 },
};
const MOVED: Env = { GATEWAY_PORT: '18080', ACCESS_PORT: '18081', ISSUES_PORT: '18082', STATISTICS_PORT: '18083', AGENT_PORT: '18084', WEB_PORT: '18085', NOTIFICATIONS_PORT: '18086' };
const everyPort = (ports: Ports) => Object.values(ports).flatMap((p) => [p.port, p.metricsPort]);

describe('start-all ports', () => {
  test('without overrides, each service has its default port and its metrics on the port + 1000', () => {
    expect(listenPorts({})).toEqual(DEFAULTS);
  });

  test('when service ports are moved, then their metrics listeners move with them', () => {
    expect(listenPorts(MOVED)).toEqual({
      access: { port: 18081, metricsPort: 19081 },
      issues: { port: 18082, metricsPort: 19082 },
      statistics: { port: 18083, metricsPort: 19083 },
      agent: { port: 18084, metricsPort: 19084 },
      notifications: { port: 18086, metricsPort: 19086 },
      web: { port: 18085, metricsPort: 19085 },
      gateway: { port: 18080, metricsPort: 19080 },
    });
  });

  test('when two copies run on one machine, the second with every port moved, then no listener of one is a listener of the other', () => {
    const first = everyPort(listenPorts({}));
    const second = everyPort(listenPorts(MOVED));
    expect(new Set([...first, ...second]).size).toBe(28);
  });

  test('when a metrics port is given for a service, then it wins over port + 1000, for that service only', () => {
    const ports = listenPorts({ ...MOVED, ACCESS_METRICS_PORT: '29999', GATEWAY_METRICS_PORT: '0' });
    expect(ports.access).toEqual({ port: 18081, metricsPort: 29999 });
    expect(ports.gateway).toEqual({ port: 18080, metricsPort: 0 });
    expect(ports.issues).toEqual({ port: 18082, metricsPort: 19082 });
  });

  test('when a service asks for any free port (0), then its metrics listener does too', () => {
    expect(listenPorts({ ISSUES_PORT: '0' }).issues).toEqual({ port: 0, metricsPort: 0 });
  });

  test('PORT and METRICS_PORT in the environment are not given to every service', () => {
    expect(listenPorts({ PORT: '7000', METRICS_PORT: '7001' })).toEqual(DEFAULTS);
  });

  test.each([
    [{ ACCESS_PORT: 'abc' }, /ACCESS_PORT must be a port number/],
    [{ ISSUES_METRICS_PORT: '70000' }, /ISSUES_METRICS_PORT must be a port number/],
    [{ AGENT_PORT: '65000' }, /agent's metrics port would be 66000.*AGENT_METRICS_PORT/],
    [{ ACCESS_PORT: '9082' }, /issues's metrics \(ISSUES_METRICS_PORT\) and access \(ACCESS_PORT\) would both listen on port 9082/],
    [{ GATEWAY_METRICS_PORT: '8084' }, /gateway's metrics \(GATEWAY_METRICS_PORT\) and agent \(AGENT_PORT\) would both listen on port 8084/],
  ])('when the ports are %j, then the start is refused naming the variable', (env, message) => {
    expect(() => listenPorts(env)).toThrow(message);
  });

  test('the services call one another on the ports of this run; URLs given are kept', () => {
    const env = { ...MOVED, AGENT_URL: 'http://agent.internal:80' };
    expect(upstreamUrls(listenPorts(env), env)).toEqual({
      ACCESS_URL: 'http://127.0.0.1:18081',
      ISSUES_URL: 'http://127.0.0.1:18082',
      STATISTICS_URL: 'http://127.0.0.1:18083',
      NOTIFICATIONS_URL: 'http://127.0.0.1:18086',
      WEB_URL: 'http://127.0.0.1:18085',
    });
    expect(upstreamUrls(listenPorts({ STATISTICS_PORT: '0' }), {})).not.toHaveProperty('STATISTICS_URL');
  });

  test('start-all.mjs refuses ports that would collide before starting anything (exit 78)', async () => {
    // Its own process group: should the script start the services after all, they go with it.
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start-all.mjs')], {
      env: { PATH: process.env.PATH, ACCESS_PORT: '18081', ACCESS_METRICS_PORT: '18081' },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
    const code = await new Promise((resolve) => child.once('exit', (c) => resolve(c)));
    clearTimeout(timer);
    expect(code).toBe(78);
    expect(stderr).toContain('would both listen on port 18081');
  });
});
