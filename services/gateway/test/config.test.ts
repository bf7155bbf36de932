import { loadGatewayConfig } from '../src/config';

const principal = { kind: 'user', userId: 3, workspaceId: 2, workspaceRole: 'admin', tokenId: 1 };
const SECRET = 'a-real-production-secret-of-at-least-32-chars';

/** Runs the config loader, turning its exit into an exception that carries the printed problems. */
function load(env: Record<string, string>) {
  const written: string[] = [];
  const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
  const exit = jest.spyOn(process, 'exit').mockImplementation(((code: number) => {
    throw new Error(`exit ${code}: ${written.join('')}`);
  }) as never);
  try {
    return loadGatewayConfig(env);
  } finally {
    write.mockRestore();
    exit.mockRestore();
  }
}

describe('BENCH_FIXED_PRINCIPAL (benchmark builds only)', () => {
  it('is off unless set', () => {
    expect(load({}).benchFixedPrincipal).toBeUndefined();
  });

  it('outside production, sets the principal every request runs as', () => {
    expect(load({ NODE_ENV: 'test', BENCH_FIXED_PRINCIPAL: JSON.stringify(principal) }).benchFixedPrincipal).toEqual(principal);
  });

  it('is refused in production, so no deployment can skip authentication', () => {
    expect(() => load({ NODE_ENV: 'production', INTERNAL_SECRET: SECRET, BENCH_FIXED_PRINCIPAL: JSON.stringify(principal) })).toThrow(
      /exit 78: .*BENCH_FIXED_PRINCIPAL: must not be set in production/s,
    );
  });

  it('is refused when it is not a user principal', () => {
    expect(() => load({ BENCH_FIXED_PRINCIPAL: '{"kind":"service","service":"x"}' })).toThrow(/BENCH_FIXED_PRINCIPAL/);
    expect(() => load({ BENCH_FIXED_PRINCIPAL: 'not json' })).toThrow(/BENCH_FIXED_PRINCIPAL/);
  });
});
