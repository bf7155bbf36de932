import { DEFAULT_STATEMENT_TIMEOUT_MS, IDLE_IN_TRANSACTION_TIMEOUT_MS, LOCK_TIMEOUT_MS, servicePoolConfig, statementTimeoutEnv } from '../src';

describe('the pool of a service', () => {
  test('when no statement timeout is given, then every connection gets the default of 5 s beside the lock and idle limits', () => {
    const config = servicePoolConfig({ url: 'postgresql://postgres@127.0.0.1:5432/tracker?schema=x', schema: 'issues', poolMax: 7 });
    expect(DEFAULT_STATEMENT_TIMEOUT_MS).toBe(5000);
    expect(config).toMatchObject({ connectionString: 'postgresql://postgres@127.0.0.1:5432/tracker', max: 7 });
    expect(config.options).toBe(
      `-c search_path="issues" -c lock_timeout=${LOCK_TIMEOUT_MS} -c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT_MS} -c statement_timeout=5000`,
    );
  });

  test('when a statement timeout is configured, then it is the one set', () => {
    const config = servicePoolConfig({ url: 'postgresql://postgres@127.0.0.1:5432/tracker', schema: 's', poolMax: 1, statementTimeoutMs: 750 });
    expect(config.options).toMatch(/ -c statement_timeout=750$/);
  });

  test('when DATABASE_STATEMENT_TIMEOUT_MS is read, then it defaults to 5000 and is 100 ms to 10 minutes', () => {
    const env = statementTimeoutEnv();
    expect(env.parse(undefined)).toBe(5000);
    expect(env.parse('250')).toBe(250);
    for (const bad of ['0', '99', '600001', 'soon', '1.5']) expect([bad, env.safeParse(bad).success]).toEqual([bad, false]);
  });
});
