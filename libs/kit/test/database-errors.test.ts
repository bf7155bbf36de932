import { isDatabaseUnavailable } from '../src';

describe('database errors that answer 503', () => {
  test.each([
    ['57014', 'query_canceled: statement_timeout'],
    ['55P03', 'lock_not_available: lock_timeout'],
    ['25P03', 'idle_in_transaction_session_timeout'],
    ['40P01', 'deadlock'],
    ['53300', 'too many connections'],
  ])('when Postgres answers %s (%s), then the database is unavailable for now (503, retry)', (code) => {
    expect(isDatabaseUnavailable({ code, message: 'x' })).toBe(true);
  });

  test('when Prisma over adapter-pg reports a cancelled statement, then it is unavailable too', () => {
    expect(isDatabaseUnavailable({ code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '57014' } } } })).toBe(true);
  });

  test('when a query is wrong (a fault, not load), then it is not', () => {
    expect(isDatabaseUnavailable({ code: '23505' })).toBe(false);
    expect(isDatabaseUnavailable({ code: '42P01' })).toBe(false);
  });
});
