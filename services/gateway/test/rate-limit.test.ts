import { clientAddressOf, clientKeyOf, windowOf } from '../src/domain/rate-limit';

describe('clientAddressOf: whom failures and requests in flight are counted against', () => {
  test('when no header is trusted, then the connection\'s address, whatever the client sends', () => {
    expect(clientAddressOf('198.51.100.9', '203.0.113.5', false)).toBe('203.0.113.5');
  });

  test('when the proxy\'s header is trusted, then its last entry (the one the proxy appended), not what the client put before it', () => {
    expect(clientAddressOf('198.51.100.9, 203.0.113.5', '10.0.0.1', true)).toBe('203.0.113.5');
    expect(clientAddressOf(['1.1.1.1', '198.51.100.9,  203.0.113.6'], '10.0.0.1', true)).toBe('203.0.113.6');
  });

  test('when there is no address at all, then one shared key', () => {
    expect(clientAddressOf(undefined, undefined, false)).toBe('unknown');
  });

  test('when the header is longer than an address, then the key is bounded', () => {
    expect(clientAddressOf('x'.repeat(10_000), undefined, true).length).toBeLessThanOrEqual(64);
  });
});

describe('clientKeyOf: an IPv6 client is its /64', () => {
  test.each([
    ['203.0.113.5', '203.0.113.5'],
    ['::ffff:203.0.113.5', '203.0.113.5'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff::', '2001:db8:1:2::/64'],
    ['[2001:db8:1:2::9]', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['2001:db8::1.2.3.4', '2001:db8:0:0::/64'],
    ['not-an-address', 'not-an-address'],
  ])('%s → %s', (address, key) => {
    expect(clientKeyOf(address)).toBe(key);
  });

  test('when one host walks through the 2^64 addresses of its /64, then it stays one client', () => {
    const keys = new Set(Array.from({ length: 1000 }, (_, i) => clientKeyOf(`2001:db8:aa:bb:${i.toString(16)}:${(i * 7).toString(16)}::${i.toString(16)}`)));
    expect([...keys]).toEqual(['2001:db8:aa:bb::/64']);
  });
});

describe('windowOf', () => {
  test('when 20 s into a minute, then Retry-After is the 40 s left', () => {
    expect(windowOf(Date.UTC(2026, 0, 1, 12, 0, 20))).toEqual({ id: Math.floor(Date.UTC(2026, 0, 1, 12, 0, 20) / 60_000), retryAfterSeconds: 40 });
  });
});
