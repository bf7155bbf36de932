import { hashToken } from '@tracker/authz';
import { readBearer } from '../src/domain/bearer';
import { rateLimitKey, WINDOW_SECONDS, windowOf } from '../src/domain/rate-limit';

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const secret = (length: number) => Array.from({ length }, (_, i) => base62[(i * 7) % 62]).join('');
const TOKEN = `trk_${secret(40)}`;

describe('readBearer', () => {
  test.each([
    ['absent', undefined],
    ['empty', ''],
  ])('when the Authorization header is %s, then missing', (_name, header) => {
    expect(readBearer(header)).toEqual({ problem: 'missing' });
  });

  test.each([
    ['Basic credentials', 'Basic dXNlcjpwYXNz'],
    ['"Bearer" alone', 'Bearer'],
    ['"Bearer" and a space', 'Bearer '],
    ['another scheme with a valid token', `Token ${TOKEN}`],
    ['the token without a scheme', TOKEN],
    ['a tab instead of a space', `Bearer\t${TOKEN}`],
    ['two tokens', `Bearer ${TOKEN} ${TOKEN}`],
  ])('when the header is %s, then not_bearer', (_name, header) => {
    expect(readBearer(header)).toEqual({ problem: 'not_bearer' });
  });

  test.each([
    ['not a trk_ token', 'abc'],
    ['too short', 'trk_short'],
    ['trk_ and 31 characters', `trk_${secret(31)}`],
    ['trk_ and 129 characters', `trk_${secret(129)}`],
    ['a dash (outside base62)', `trk_${secret(39)}-`],
    ['a plus sign (outside base62)', `trk_${secret(39)}+`],
    ['a slash (outside base62)', `trk_${secret(39)}/`],
    ['an underscore (outside base62)', `trk_${secret(39)}_`],
    ['base64 padding', `trk_${secret(38)}==`],
    ['a non-ASCII letter', `trk_${secret(39)}é`],
    ['the prefix in capitals', `TRK_${secret(40)}`],
    ['another prefix', `tok_${secret(40)}`],
    ['no underscore after the prefix', `trk${secret(40)}`],
  ])('when the bearer token is %s, then malformed', (_name, token) => {
    expect(readBearer(`Bearer ${token}`)).toEqual({ problem: 'malformed' });
  });

  test.each([
    ['a 40-character token', `Bearer ${TOKEN}`, TOKEN],
    ['the scheme in lower case', `bearer ${TOKEN}`, TOKEN],
    ['the scheme in capitals', `BEARER ${TOKEN}`, TOKEN],
    ['several spaces and a trailing space', `Bearer   ${TOKEN} `, TOKEN],
    ['the shortest allowed token (32 characters)', `Bearer trk_${secret(32)}`, `trk_${secret(32)}`],
    ['the longest allowed token (128 characters)', `Bearer trk_${secret(128)}`, `trk_${secret(128)}`],
  ])('when the header has %s, then the token is returned', (_name, header, token) => {
    expect(readBearer(header)).toEqual({ token });
  });
});

describe('windowOf', () => {
  const windowStart = 28_333_334 * 60_000; // 2023-11-14T22:14:00Z, a whole minute

  test.each([
    ['at the exact start of a window', 60, 0],
    ['half a second into it', 60, 500],
    ['one second into it', 59, 1_000],
    ['half-way', 30, 30_000],
    ['one second before its end', 1, 59_000],
    ['one millisecond before its end', 1, 59_999],
  ])('when the time is %s, then the window id is floor(seconds/60) and Retry-After is %d', (_name, retry, offset) => {
    expect(windowOf(windowStart + offset)).toEqual({ id: 28_333_334, retryAfterSeconds: retry });
  });

  test('when the window ends, then the next id starts with a full Retry-After', () => {
    expect(windowOf(windowStart + 60_000)).toEqual({ id: 28_333_335, retryAfterSeconds: 60 });
  });

  test('when time runs through two windows, then Retry-After stays within 1..60 and points to the start of the next window', () => {
    for (let t = windowStart; t < windowStart + 120_000; t += 250) {
      const { id, retryAfterSeconds } = windowOf(t);
      expect(id).toBe(Math.floor(Math.floor(t / 1000) / WINDOW_SECONDS));
      expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(retryAfterSeconds).toBeLessThanOrEqual(60);
      expect(windowOf(Math.floor(t / 1000) * 1000 + retryAfterSeconds * 1000).id).toBe(id + 1);
    }
  });
});

describe('rateLimitKey', () => {
  const hash = hashToken(TOKEN);

  test('when called twice with the same token hash and window, then the key is the same', () => {
    expect(rateLimitKey(hash, 42)).toBe(rateLimitKey(hashToken(TOKEN), 42));
  });

  test('when the window or the token differs, then the key differs', () => {
    expect(rateLimitKey(hash, 43)).not.toBe(rateLimitKey(hash, 42));
    expect(rateLimitKey(hashToken(`trk_${secret(41)}`), 42)).not.toBe(rateLimitKey(hash, 42));
  });

  test('when a key is built, then it names the window but does not contain the whole token hash', () => {
    const key = rateLimitKey(hash, 42);
    expect(key).toMatch(/:42$/);
    expect(key).not.toContain(hash);
    expect(key).not.toContain(TOKEN);
  });
});
