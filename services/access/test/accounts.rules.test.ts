import { emailKeyOf, isCrossSite, type RequestSite, isSessionLive, sessionDeadline, setupUrlOf, tokenExpiry } from '../src/domain/accounts.rules';

const HOUR = 3_600_000;
const now = new Date('2026-11-29T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const ahead = (ms: number) => new Date(now.getTime() + ms);

describe('sessions', () => {
  test('a session ends 12 hours after it was last seen, never past its absolute end, and at once when ended', () => {
    expect(sessionDeadline({ lastSeenAt: ago(HOUR), expiresAt: ahead(1000 * HOUR), endedAt: null })).toEqual(ahead(11 * HOUR));
    expect(sessionDeadline({ lastSeenAt: now, expiresAt: ahead(HOUR), endedAt: null })).toEqual(ahead(HOUR));
    expect(isSessionLive({ lastSeenAt: ago(12 * HOUR - 1), expiresAt: ahead(HOUR), endedAt: null }, now)).toBe(true);
    expect(isSessionLive({ lastSeenAt: ago(12 * HOUR), expiresAt: ahead(HOUR), endedAt: null }, now)).toBe(false);
    expect(isSessionLive({ lastSeenAt: now, expiresAt: now, endedAt: null }, now)).toBe(false);
    expect(isSessionLive({ lastSeenAt: now, expiresAt: ahead(HOUR), endedAt: ago(1) }, now)).toBe(false);
  });
});

describe('emails, links and expiries', () => {
  test('an email is matched in lower case, without surrounding space', () => {
    expect(emailKeyOf(' Ada@Example.COM ')).toBe('ada@example.com');
  });

  test('a setup link carries its code in the fragment, on the public address without a trailing slash', () => {
    expect(setupUrlOf('https://t.example/', 'abc')).toBe('https://t.example/setup#code=abc');
  });

  test('a token expires after its days, or never', () => {
    expect(tokenExpiry(now, 30)).toEqual(ahead(30 * 24 * HOUR));
    expect(tokenExpiry(now, null)).toBeNull();
  });
});

describe('isCrossSite', () => {
  const PUBLIC = 'https://tracker.example.com';
  test.each<[RequestSite, boolean, string]>([
    [{ origin: undefined, fetchSite: undefined, host: 'x' }, false, 'a tool without browser headers'],
    [{ origin: PUBLIC, fetchSite: 'same-origin', host: 'internal:8080' }, false, 'the public address'],
    [{ origin: 'http://localhost:8080', fetchSite: undefined, host: 'localhost:8080' }, false, 'the address the request was sent to'],
    [{ origin: undefined, fetchSite: 'none', host: 'x' }, false, 'typed in the address bar'],
    [{ origin: 'https://evil.example', fetchSite: undefined, host: 'tracker.example.com' }, true, 'another origin'],
    [{ origin: undefined, fetchSite: 'cross-site', host: 'x' }, true, 'cross-site fetch metadata'],
    [{ origin: undefined, fetchSite: 'same-site', host: 'x' }, true, 'a sibling subdomain'],
    [{ origin: 'null', fetchSite: undefined, host: 'x' }, true, 'an opaque origin'],
    [{ origin: 'https://tracker.example.com.evil.example', fetchSite: undefined, host: 'tracker.example.com' }, true, 'a look-alike'],
  ])('%o → %s (%s)', (site, expected) => {
    expect(isCrossSite(site, PUBLIC)).toBe(expected);
  });
});
