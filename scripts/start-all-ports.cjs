'use strict';
// The ports and upstream URLs scripts/start-all.mjs gives the services, as pure functions
// of the environment so a test can check them without starting anything. CommonJS so the
// tests (jest runs CommonJS) can load it; start-all.mjs imports it all the same.

/** The services in start order (the gateway last), each with its default port. */
const DEFAULT_PORTS = { access: 8081, issues: 8082, statistics: 8083, agent: 8084, notifications: 8086, web: 8085, gateway: 8080 };
const SERVICES = Object.keys(DEFAULT_PORTS);
/** The services that sign their calls, each with a key pair: all but web, which serves files and calls nothing. */
const SIGNERS = SERVICES.filter((name) => name !== 'web');
/** A /metrics listener's default distance from its service's port. */
const METRICS_OFFSET = 1000;
const MAX_PORT = 65535;

function portFrom(env, key) {
  const raw = env[key];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) > MAX_PORT) throw new Error(`${key} must be a port number (0-${MAX_PORT}), not "${raw}"`);
  return Number(raw);
}

/**
 * Every service's port and /metrics port: <NAME>_PORT or the default, and
 * <NAME>_METRICS_PORT or that port + 1000 (port 0, any free one, keeps 0 for both).
 * Throws, naming the variables, when a value is not a port or two listeners would share one.
 */
function listenPorts(env) {
  const ports = {};
  const owners = new Map();
  const claim = (port, owner) => {
    if (port === 0) return;
    if (owners.has(port)) throw new Error(`${owner} and ${owners.get(port)} would both listen on port ${port}`);
    owners.set(port, owner);
  };
  for (const name of SERVICES) {
    const prefix = name.toUpperCase();
    const port = portFrom(env, `${prefix}_PORT`) ?? DEFAULT_PORTS[name];
    let metricsPort = portFrom(env, `${prefix}_METRICS_PORT`);
    if (metricsPort === undefined) {
      metricsPort = port === 0 ? 0 : port + METRICS_OFFSET;
      if (metricsPort > MAX_PORT) throw new Error(`${name}'s metrics port would be ${metricsPort} (port + ${METRICS_OFFSET}): set ${prefix}_METRICS_PORT`);
    }
    claim(port, `${name} (${prefix}_PORT)`);
    claim(metricsPort, `${name}'s metrics (${prefix}_METRICS_PORT)`);
    ports[name] = { port, metricsPort };
  }
  return ports;
}

/**
 * ACCESS_URL, ISSUES_URL, STATISTICS_URL, AGENT_URL, NOTIFICATIONS_URL and WEB_URL for the services' calls to one
 * another, from the ports of this run: a service on an overridden port is still the one
 * its neighbours call. URLs given in the environment, and ports 0, are left alone.
 */
function upstreamUrls(ports, env) {
  const urls = {};
  for (const name of SERVICES.filter((n) => n !== 'gateway')) {
    const key = `${name.toUpperCase()}_URL`;
    if (!env[key] && ports[name].port !== 0) urls[key] = `http://127.0.0.1:${ports[name].port}`;
  }
  return urls;
}

module.exports = { SERVICES, SIGNERS, DEFAULT_PORTS, METRICS_OFFSET, listenPorts, upstreamUrls };
