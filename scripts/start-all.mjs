#!/usr/bin/env node
// Runs the seven services in one terminal (what `pnpm start` does after migrating and
// compiling): fresh signing keys for this run, one prefixed log stream, and a clean stop
// on Ctrl-C. Each service runs its compiled JavaScript (services/<name>/dist/main.js,
// written by scripts/build.mjs); with --dev (`pnpm dev`) its TypeScript sources through tsx
// (the web service's app, dist/public, is built first if there is none).
//
// Ports: gateway 8080, access 8081, issues 8082, statistics 8083, agent 8084, web 8085,
// notifications 8086, each with its /metrics listener on its port + 1000. <NAME>_PORT
// (GATEWAY_PORT, ACCESS_PORT, ...)
// moves a service, and its metrics listener with it (still + 1000, or 0 with port 0);
// <NAME>_METRICS_PORT (ACCESS_METRICS_PORT, ...) sets a metrics port of its own. The
// services call one another on the ports of this run unless ACCESS_URL etc. are set, so
// a second copy with all seven ports moved runs beside the first. PORT and METRICS_PORT
// in the environment are ignored: the seven services would all take the same port.
// Ports that are not numbers or that two listeners would share stop the start (exit 78).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICES, SIGNERS, listenPorts, upstreamUrls } from './start-all-ports.cjs';

const { newSeed, publicKeyOf } = createRequire(import.meta.url)('./internal-keys.cjs');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

let ports;
try {
  ports = listenPorts(process.env);
} catch (error) {
  process.stderr.write(`start-all: ${error.message}\n`);
  process.exit(78);
}

// Each service would fall back to its development key, which anyone can derive: a key
// pair of its own per service and per run is safer (INTERNAL_SIGNING_KEY, INTERNAL_TRUSTED_KEYS).
// The web service signs nothing: it gets no key.
const seeds = Object.fromEntries(SIGNERS.map((name) => [name, newSeed()]));
const env = {
  ...process.env,
  ...upstreamUrls(ports, process.env),
  INTERNAL_TRUSTED_KEYS: SIGNERS.map((name) => `${name}:${publicKeyOf(seeds[name])}`).join(','),
};
const children = new Map();
let stopping = false;

const dev = process.argv.includes('--dev');
const entryArgs = dev ? ['--import', 'tsx', 'src/main.ts'] : ['dist/main.js'];
if (dev && !existsSync(path.join(root, 'services/web/dist/public/index.html'))) {
  spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs'), 'web'], { stdio: 'inherit' });
}

for (const name of SERVICES) {
  const child = spawn(process.execPath, entryArgs, {
    cwd: path.join(root, 'services', name),
    env: { ...env, ...(seeds[name] && { INTERNAL_SIGNING_KEY: seeds[name] }), PORT: String(ports[name].port), METRICS_PORT: String(ports[name].metricsPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(name, child);
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) process.stdout.write(`${name.padEnd(10)} | ${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      process.stderr.write(`${name} exited (${signal ?? code}); stopping the others.\n`);
      stop(1);
    } else if (children.size === 0) process.exit(process.exitCode ?? 0);
  });
}

function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  for (const child of children.values()) child.kill('SIGTERM');
  if (children.size === 0) process.exit(code);
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

const gatewayPort = ports.gateway.port;
waitForGateway(`http://127.0.0.1:${gatewayPort}/readyz`).then((ok) => {
  if (!ok) return;
  process.stdout.write(`
Tracker is running: http://127.0.0.1:${gatewayPort}/ (the web pages)
REST API: http://127.0.0.1:${gatewayPort}/api/v1
Agents (MCP, Streamable HTTP): http://127.0.0.1:${gatewayPort}/mcp with the same token

Create a workspace and a first admin (in another terminal); open the setup_url it prints
to set a password, then make personal tokens at http://127.0.0.1:${gatewayPort}/settings/tokens:
  pnpm -s admin workspace create --name Acme --admin-name Ada --admin-email ada@example.com --json
Or use the admin token it prints:
  curl -H "Authorization: Bearer <token>" http://127.0.0.1:${gatewayPort}/api/v1/me

Ctrl-C stops all services.
`);
});

async function waitForGateway(url) {
  for (let i = 0; i < 120 && !stopping; i++) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}
