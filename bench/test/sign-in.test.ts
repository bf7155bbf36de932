import { cpuMsPer, sessionCookieOf, setupCodeOf } from '../src/sign-in';

describe('B10 and B2 sign-in helpers', () => {
  it('takes the code of a setup link from its fragment', () => {
    expect(setupCodeOf('http://127.0.0.1:8080/setup#code=vN3kq0yD0d6kz8H9bX2c1w')).toBe('vN3kq0yD0d6kz8H9bX2c1w');
    expect(setupCodeOf('https://tracker.example.com/base/setup#code=a-b_c')).toBe('a-b_c');
  });

  it('refuses a link without a code', () => {
    expect(() => setupCodeOf('http://127.0.0.1:8080/setup')).toThrow(/no #code=/);
    expect(() => setupCodeOf('http://127.0.0.1:8080/setup#code=')).toThrow(/no #code=/);
  });

  it('sends back the session cookie a sign-in sets, among others', () => {
    expect(sessionCookieOf(['trk_session=abc123; Path=/; HttpOnly; SameSite=Lax; Max-Age=2592000'])).toBe('trk_session=abc123');
    expect(sessionCookieOf(['other=1; Path=/', 'trk_session=x=y; Path=/; Secure'])).toBe('trk_session=x=y');
  });

  it('takes an emptied cookie (a sign-out) or none for no session', () => {
    expect(() => sessionCookieOf(['trk_session=; Path=/; Max-Age=0'])).toThrow(/no trk_session cookie/);
    expect(() => sessionCookieOf([])).toThrow(/no trk_session cookie/);
    expect(() => sessionCookieOf(['trk_session_old=abc; Path=/'])).toThrow(/no trk_session cookie/);
  });

  it('turns a process.cpuUsage difference (µs) into ms per operation, never dividing by zero', () => {
    expect(cpuMsPer({ user: 900_000, system: 100_000 }, 40)).toBeCloseTo(25, 10);
    expect(cpuMsPer({ user: 2_000, system: 0 }, 0)).toBeCloseTo(2, 10);
  });
});
