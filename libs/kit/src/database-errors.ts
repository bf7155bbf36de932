/**
 * Whether an error from node-postgres means the database is away or not usable
 * right now (unreachable, restarting, out of connections, not migrated), as opposed to
 * a fault in a query. The first kind answers 503 like any missing dependency.
 */
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'DatabaseDoesNotExist',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
  'TableDoesNotExist',
]);

// Postgres classes: 08 connection exception, 53 insufficient resources, 57 operator
// intervention (shutdown; 57014 query_canceled: statement_timeout), 40001/40P01 serialization and deadlock,
// 55P03 lock wait over lock_timeout, 25P03 transaction idle past its limit.
const UNAVAILABLE_SQLSTATE = /^(08|53|57|40001|40P01|55P03|25P03)/;

export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { name?: string; code?: string; message?: string; meta?: { driverAdapterError?: { cause?: { kind?: string; originalCode?: string } } } } | null;
  if (!e || typeof e !== 'object') return false;
  // node-postgres itself: every pool connection busy past connectionTimeoutMillis, or the server refusing.
  if (e.message === 'timeout exceeded when trying to connect' || e.message === 'Connection terminated unexpectedly') return true;
  if (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET') return true;
  // node-postgres carries the SQLSTATE itself in `code`.
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && UNAVAILABLE_SQLSTATE.test(e.code)) return true;
  if (e.name === 'PrismaClientInitializationError') return true;
  // P1001/P1002/P1008/P1017: server unreachable, timed out or closed; P2024: no pool connection in time; P2028: transaction API.
  if (e.code && ['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028'].includes(e.code)) return true;
  const cause = e.meta?.driverAdapterError?.cause;
  if (cause?.kind && UNAVAILABLE_KINDS.has(cause.kind)) return true;
  return typeof cause?.originalCode === 'string' && UNAVAILABLE_SQLSTATE.test(cause.originalCode);
}
