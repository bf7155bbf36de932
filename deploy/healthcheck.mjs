// Container health probe for the slim image (no curl/wget there):
//   node deploy/healthcheck.mjs [/healthz|/readyz]
// Exits 0 on a 2xx from the service on $PORT, 1 otherwise (including a timeout).
const path = process.argv[2] ?? '/healthz';
const port = process.env.PORT;

try {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(3000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
