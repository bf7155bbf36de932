import fs from 'node:fs';
import net from 'node:net';

export interface Infra {
  databaseUrl: string;
  redisUrl: string;
  amqpUrl: string;
  source: 'env' | 'testcontainers' | 'local';
}

const LOCAL = {
  databaseUrl: 'postgresql://postgres@127.0.0.1:5432/tracker_test',
  redisUrl: 'redis://127.0.0.1:6379',
  amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
};

/**
 * Where the tests find Postgres, Redis and RabbitMQ, in this order:
 * 1. TEST_DATABASE_URL / TEST_REDIS_URL / TEST_AMQP_URL (CI and any explicit setup);
 * 2. a reachable Docker engine: testcontainers starts all three;
 * 3. the services on their standard local ports (this machine kind runs them);
 * otherwise a message saying what to set.
 */
export async function resolveInfra(env = process.env): Promise<Infra> {
  const { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_AMQP_URL } = env;
  if (TEST_DATABASE_URL || TEST_REDIS_URL || TEST_AMQP_URL) {
    return {
      databaseUrl: TEST_DATABASE_URL ?? LOCAL.databaseUrl,
      redisUrl: TEST_REDIS_URL ?? LOCAL.redisUrl,
      amqpUrl: TEST_AMQP_URL ?? LOCAL.amqpUrl,
      source: 'env',
    };
  }
  if (dockerReachable(env)) return startContainers();
  const reachable = await Promise.all([5432, 6379, 5672].map((port) => canConnect('127.0.0.1', port)));
  if (reachable.every(Boolean)) return { ...LOCAL, source: 'local' };
  throw new Error(
    [
      'No test infrastructure found.',
      'Set TEST_DATABASE_URL, TEST_REDIS_URL and TEST_AMQP_URL (e.g. postgresql://postgres@127.0.0.1:5432/tracker_test,',
      'redis://127.0.0.1:6379, amqp://guest:guest@127.0.0.1:5672), or make a Docker engine reachable for testcontainers,',
      'or start PostgreSQL, Redis and RabbitMQ on their standard local ports.',
    ].join('\n'),
  );
}

function dockerReachable(env: NodeJS.ProcessEnv): boolean {
  if (env.DOCKER_HOST) return true;
  return fs.existsSync('/var/run/docker.sock');
}

function canConnect(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function startContainers(): Promise<Infra> {
  // Loaded lazily: most runs (CI here) never need the Docker client.
  const { GenericContainer, Wait } = await import('testcontainers');
  const [pg, redis, rabbit] = await Promise.all([
    new GenericContainer('postgres:15-alpine')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust', POSTGRES_DB: 'tracker_test' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start(),
    new GenericContainer('redis:7-alpine').withExposedPorts(6379).start(),
    new GenericContainer('rabbitmq:3-alpine').withExposedPorts(5672).withWaitStrategy(Wait.forLogMessage(/Server startup complete/)).start(),
  ]);
  return {
    databaseUrl: `postgresql://postgres@${pg.getHost()}:${pg.getMappedPort(5432)}/tracker_test`,
    redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    amqpUrl: `amqp://guest:guest@${rabbit.getHost()}:${rabbit.getMappedPort(5672)}`,
    source: 'testcontainers',
  };
}
