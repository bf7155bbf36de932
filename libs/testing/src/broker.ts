import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports';

const run = promisify(execFile);
const RABBITMQ_BIN = process.env.RABBITMQ_BIN ?? '/usr/lib/rabbitmq/bin';

/**
 * A RabbitMQ node of a test's own, for tests that stop, pause or cut the broker: doing
 * that to the shared broker would break every other test file running at the time.
 */
export interface PrivateBroker {
  /** `amqp://guest:guest@127.0.0.1:<port>` (guest may connect from loopback). */
  url: string;
  port: number;
  nodeName: string;
  /** `rabbitmqctl -n <node> <args>`; its stdout. */
  ctl: (...args: string[]) => Promise<string>;
  /** Stops the RabbitMQ application (every connection closed, the port refused); the VM keeps running. */
  stopApp: () => Promise<void>;
  /** Starts it again, durable queues and persistent messages recovered. */
  startApp: () => Promise<void>;
  /** `rabbitmqctl close_all_connections`: the broker force-closes every client connection. */
  closeAllConnections: (reason?: string) => Promise<void>;
  /** SIGSTOP of the Erlang VM: the port still accepts TCP, nothing answers (heartbeats stop). */
  pause: () => void;
  /** SIGCONT. */
  resume: () => void;
  /** Everything the node printed. */
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts a RabbitMQ node in a temporary folder: its own node name, AMQP and distribution
 * ports, Mnesia and log folders and Erlang cookie (HOME), no plugins. Needs the RabbitMQ
 * server installed (RABBITMQ_BIN, default /usr/lib/rabbitmq/bin); takes a few seconds.
 */
export async function startPrivateBroker(options: { startTimeoutMs?: number } = {}): Promise<PrivateBroker> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracker-rabbit-'));
  fs.writeFileSync(path.join(dir, 'enabled_plugins'), '[].\n');
  const [port, distPort] = [await freePort(), await freePort()];
  const nodeName = `rabbit_test_${path.basename(dir).replace(/[^a-zA-Z0-9]/g, '')}@localhost`;
  const env = {
    PATH: process.env.PATH ?? '',
    LANG: 'C.UTF-8',
    // The Erlang cookie lives in HOME: a fresh one, shared only by this node and rabbitmqctl.
    HOME: dir,
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq'),
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(dir, 'advanced.config'),
    RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_PID_FILE: path.join(dir, 'rabbitmq.pid'),
    RABBITMQ_LOGS: '-',
  };
  const child: ChildProcess = spawn(path.join(RABBITMQ_BIN, 'rabbitmq-server'), [], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 1_000_000) output = output.slice(-500_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));

  const ctl = async (...args: string[]) => (await run(path.join(RABBITMQ_BIN, 'rabbitmqctl'), ['-n', nodeName, ...args], { env, timeout: 60_000 })).stdout;
  const vmPid = () => Number(fs.readFileSync(env.RABBITMQ_PID_FILE, 'utf8').trim());
  const stop = async () => {
    if (!exited) {
      try {
        process.kill(vmPid(), 'SIGCONT');
      } catch {
        // not paused, or already gone
      }
      try {
        process.kill(vmPid(), 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
      const timer = setTimeout(() => {
        try {
          process.kill(vmPid(), 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, 10_000);
      await exit;
      clearTimeout(timer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
    while (!(await amqpAnswers(port))) {
      if (exited || Date.now() > deadline) throw new Error(`private RabbitMQ did not start:\n${output.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await ctl('await_startup');
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    url: `amqp://guest:guest@127.0.0.1:${port}`,
    port,
    nodeName,
    ctl,
    stopApp: async () => void (await ctl('stop_app')),
    startApp: async () => {
      await ctl('start_app');
      await ctl('await_startup');
    },
    closeAllConnections: async (reason = 'test: connections force-closed') => void (await ctl('close_all_connections', reason)),
    pause: () => process.kill(vmPid(), 'SIGSTOP'),
    resume: () => process.kill(vmPid(), 'SIGCONT'),
    output: () => output,
    stop,
  };
}

/** Whether the port answers an AMQP protocol header (the VM listens before the app is up). */
function amqpAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => socket.write(Buffer.from('AMQP\x00\x00\x09\x01', 'latin1')));
    socket.once('data', () => done(true));
    socket.once('error', () => done(false));
  });
}
