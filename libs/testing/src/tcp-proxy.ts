import net from 'node:net';

/**
 * A TCP relay between a service and real infrastructure (Redis, RabbitMQ) that a
 * test can cut, so one system under test loses its Redis without the other test
 * files, which share the real server, noticing.
 */
export interface TcpProxy {
  url: (scheme: string) => string;
  port: number;
  /** Refuse new connections and drop open ones (like a stopped server). */
  cut: () => Promise<void>;
  /** Accept connections again. */
  restore: () => Promise<void>;
  close: () => Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: targetHost, port: targetPort });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port,
    url: (scheme) => `${scheme}://127.0.0.1:${port}`,
    cut: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        dropAll();
      });
    },
    restore: () => listen(port),
    close: async () => {
      dropAll();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const DEFAULT_PORTS: Record<string, number> = { 'redis:': 6379, 'rediss:': 6379, 'amqp:': 5672, 'amqps:': 5671, 'postgres:': 5432, 'postgresql:': 5432 };

/** host and port of a redis:// or amqp:// URL (the scheme's default port when it names none). */
export function hostPort(url: string): [string, number] {
  const parsed = new URL(url);
  return [parsed.hostname.replace(/^\[|\]$/g, ''), parsed.port ? Number(parsed.port) : (DEFAULT_PORTS[parsed.protocol] ?? NaN)];
}
