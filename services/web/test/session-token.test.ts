import fs from 'node:fs';
import path from 'node:path';
import { MARGIN_MS, RENEW_AT, RETRY_MS, SessionTokens, SignedOutError, type IssuedToken } from '../app/src/session-token';
import { fakeClock as makeFakeClock } from './fake-clock';

/**
 * The signed-in page's token: held in memory, renewed at 80% of its life, tried again
 * after a network failure while it is still good, and given up when the session refuses.
 * A hand-driven clock stands in for time.
 */
const fakeClock = () => makeFakeClock({ start: 1_000_000 });

const FIFTEEN_MINUTES = 900;

function issuer(...answers: Array<IssuedToken | Error>) {
  const calls: number[] = [];
  let n = 0;
  const issue = jest.fn(async () => {
    calls.push(n);
    const answer = answers[Math.min(n++, answers.length - 1)]!;
    if (answer instanceof Error) throw answer;
    return answer;
  });
  return issue;
}

const token = (name: string, expires_in = FIFTEEN_MINUTES): IssuedToken => ({ access_token: name, expires_in });

describe('the page token', () => {
  test('when the page first needs a token, then it asks the session once, however many calls wait for it', async () => {
    const { clock } = fakeClock();
    const issue = issuer(token('t1'));
    const tokens = new SessionTokens(issue, jest.fn(), clock);
    const all = await Promise.all([tokens.current(), tokens.current(), tokens.current()]);
    expect(all).toEqual(['t1', 't1', 't1']);
    expect(issue).toHaveBeenCalledTimes(1);
  });

  test('when 80% of its life has passed, then a new token is fetched before the old one ends, and used from then on', async () => {
    const { clock, advance } = fakeClock();
    const issue = issuer(token('t1'), token('t2'), token('t3'));
    const tokens = new SessionTokens(issue, jest.fn(), clock);
    expect(await tokens.current()).toBe('t1');
    await advance(FIFTEEN_MINUTES * 1000 * RENEW_AT - 1);
    expect(issue).toHaveBeenCalledTimes(1);
    expect(await tokens.current()).toBe('t1');
    await advance(1);
    expect(issue).toHaveBeenCalledTimes(2);
    expect(await tokens.current()).toBe('t2');
    // And again 12 minutes after that: a page left open keeps a good token.
    await advance(FIFTEEN_MINUTES * 1000 * RENEW_AT);
    expect(await tokens.current()).toBe('t3');
    expect(issue).toHaveBeenCalledTimes(3);
  });

  test('the renewal follows the life the session gives (expires_in), not a fixed 15 minutes', async () => {
    const { clock, advance } = fakeClock();
    const issue = issuer(token('short', 100), token('next', 100));
    const tokens = new SessionTokens(issue, jest.fn(), clock);
    await tokens.current();
    await advance(80_000);
    expect(issue).toHaveBeenCalledTimes(2);
  });

  test('when a renewal fails for the network, then it is tried again while the token held is good, which stays in use meanwhile', async () => {
    const { clock, advance } = fakeClock();
    const issue = issuer(token('t1'), new Error('offline'), new Error('offline'), token('t2'));
    const tokens = new SessionTokens(issue, jest.fn(), clock);
    await tokens.current();
    await advance(FIFTEEN_MINUTES * 1000 * RENEW_AT);
    expect(issue).toHaveBeenCalledTimes(2);
    expect(await tokens.current()).toBe('t1');
    await advance(RETRY_MS);
    expect(issue).toHaveBeenCalledTimes(3);
    await advance(RETRY_MS);
    expect(issue).toHaveBeenCalledTimes(4);
    expect(await tokens.current()).toBe('t2');
  });

  test('when the token held is about to end and no renewal got through, then the next call asks for a new one rather than send it', async () => {
    const { clock, advance } = fakeClock();
    const issue = issuer(token('t1'), new Error('offline'));
    const tokens = new SessionTokens(issue, jest.fn(), clock);
    await tokens.current();
    // Every retry fails until the token is within its margin of the end.
    await advance(FIFTEEN_MINUTES * 1000 - MARGIN_MS);
    const calls = issue.mock.calls.length;
    await expect(tokens.current()).rejects.toThrow('offline');
    expect(issue.mock.calls.length).toBe(calls + 1);
  });

  test('when the session refuses a renewal (signed out elsewhere), then the page is told once and holds no token any more', async () => {
    const { clock, advance, pending } = fakeClock();
    const onSignedOut = jest.fn();
    const issue = issuer(token('t1'), new SignedOutError());
    const tokens = new SessionTokens(issue, onSignedOut, clock);
    await tokens.current();
    await advance(FIFTEEN_MINUTES * 1000 * RENEW_AT);
    expect(onSignedOut).toHaveBeenCalledTimes(1);
    expect(pending()).toBe(0);
    await expect(tokens.current()).rejects.toBeInstanceOf(SignedOutError);
    expect(issue).toHaveBeenCalledTimes(2);
    expect(onSignedOut).toHaveBeenCalledTimes(1);
  });

  test('when /api/v1 refuses the token held, then renew() fetches a new one at once', async () => {
    const { clock } = fakeClock();
    const issue = issuer(token('t1'), token('t2'));
    const tokens = new SessionTokens(issue, jest.fn(), clock);
    await tokens.current();
    expect(await tokens.renew()).toBe('t2');
    expect(await tokens.current()).toBe('t2');
  });

  test('when the page signs out, then the token is forgotten and no renewal runs any more', async () => {
    const { clock, advance, pending } = fakeClock();
    const issue = issuer(token('t1'), token('t2'));
    const tokens = new SessionTokens(issue, jest.fn(), clock);
    await tokens.current();
    tokens.stop();
    expect(pending()).toBe(0);
    expect(tokens.expiresAt()).toBeUndefined();
    await advance(FIFTEEN_MINUTES * 1000);
    expect(issue).toHaveBeenCalledTimes(1);
    await expect(tokens.current()).rejects.toBeInstanceOf(SignedOutError);
  });

  test('a token that arrives after the page signed out is not kept', async () => {
    const { clock } = fakeClock();
    let answer!: (t: IssuedToken) => void;
    const tokens = new SessionTokens(() => new Promise<IssuedToken>((resolve) => (answer = resolve)), jest.fn(), clock);
    const asked = tokens.current();
    tokens.stop();
    answer(token('late'));
    await expect(asked).rejects.toBeInstanceOf(SignedOutError);
    expect(tokens.expiresAt()).toBeUndefined();
  });
});

test('the token is never written to web storage or the address: the code that holds it touches neither', () => {
  const read = (file: string) => fs.readFileSync(path.join(__dirname, '../app/src', file), 'utf8');
  // The code, without its comments (which say what it never does).
  const source = ['session-token.ts', 'auth.tsx', 'http.ts'].map(read).join('\n').replace(/\/\*[^]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  expect(source).not.toMatch(/localStorage|sessionStorage|document\.cookie|history\.(push|replace)State|location\.(href|hash|search)\s*=/);
});
