import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP relay on 127.0.0.1 that adds headers to every request and forwards it to
 * the same path on `target`, for a client that cannot send them (a tool that takes a
 * URL but no Authorization header). Everything else passes unchanged, Host included,
 * both ways and streamed: method, path, headers, body; status, headers, body.
 */
export interface HeaderRelay {
  /** The relay's origin, e.g. http://127.0.0.1:54321 (append the path to reach). */
  url: string;
  close: () => Promise<void>;
}

export async function startHeaderRelay(target: string, addHeaders: Record<string, string>): Promise<HeaderRelay> {
  const added = Object.fromEntries(Object.entries(addHeaders).map(([name, value]) => [name.toLowerCase(), value]));
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const upstream = http.request(new URL(req.url!, target), { method: req.method, headers: { ...req.headers, ...added }, agent }, (answer) => {
      res.writeHead(answer.statusCode!, answer.statusMessage, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end();
    });
    // The client gone before the answer is complete: so is the forwarded request.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
