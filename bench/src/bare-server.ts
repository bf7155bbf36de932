/**
 * The ceiling of an HTTP read: a bare node:http server answering every request with
 * the bytes (and content type) the issues service answered for the same issue.
 * Usage: bare-server <port> <body file>. Own process, like the services.
 */
import fs from 'node:fs';
import http from 'node:http';

const [port, file] = process.argv.slice(2);
const body = fs.readFileSync(file!);
const server = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
