import { addressClass, addressRefusal, NO_ALLOWED_TARGETS, parseAllowedTargets, parseAllowedTargetsOrThrow, urlRefusal } from '../src/domain/targets.rules';

const allow = (text: string) => parseAllowedTargetsOrThrow(text);

describe('webhook URLs: their form', () => {
  test.each([
    ['https://hooks.example.com/tracker?x=1', null],
    ['http://hooks.example.com:8080/', null],
    ['https://[2606:4700::1111]/', null],
    ['ftp://hooks.example.com/', 'must be an http or https URL'],
    ['file:///etc/passwd', 'must be an http or https URL'],
    ['javascript:alert(1)', 'must be an http or https URL'],
    ['hooks.example.com/x', 'must be an absolute http or https URL'],
    ['https://user:pass@hooks.example.com/', 'must not hold a user name or password'],
    ['https://token@hooks.example.com/', 'must not hold a user name or password'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
  ])('%s: %s', (url, refusal) => {
    expect(urlRefusal(url)).toBe(refusal);
  });

  test('a URL of exactly 2048 characters is accepted', () => {
    const url = `https://hooks.example.com/${'a'.repeat(2048 - 'https://hooks.example.com/'.length)}`;
    expect(url).toHaveLength(2048);
    expect(urlRefusal(url)).toBeNull();
  });
});

describe('webhook addresses: every special class is refused, by name', () => {
  test.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fd00:ec2::254', 'metadata'],
    ['fd12:3456::1', 'private'],
    ['fc00::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['100::1', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['4000::1', 'reserved'],
    // IPv6 forms that reach an IPv4 address are judged by it.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b:1::1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
  ])('%s is %s', (ip, cls) => {
    expect(addressClass(ip)).toBe(cls);
    expect(addressRefusal(ip, ip, NO_ALLOWED_TARGETS)).toBe(`${ip}, ${cls === 'unspecified' ? 'an' : 'a'} ${cls} address`);
  });

  test.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1'])(
    '%s is public: allowed',
    (ip) => {
      expect(addressClass(ip)).toBeNull();
      expect(addressRefusal(ip, 'hooks.example.com', NO_ALLOWED_TARGETS)).toBeNull();
    },
  );

  test('the refusal names the host and the address it resolved to', () => {
    expect(addressRefusal('10.0.0.5', 'Internal.Example.', NO_ALLOWED_TARGETS)).toBe('internal.example resolves to 10.0.0.5, a private address');
  });

  test('an address with a zone is refused as link-local', () => {
    expect(addressRefusal('fe80::1%eth0', 'fe80::1%eth0', NO_ALLOWED_TARGETS)).toBe('fe80::1%eth0, a link-local address');
  });
});

describe('WEBHOOK_ALLOWED_TARGETS', () => {
  test('a host name allows every address it resolves to, for that host only (case and a final dot aside)', () => {
    const allowed = allow(' hooks.internal , other.example ');
    expect(addressRefusal('10.0.0.5', 'HOOKS.internal.', allowed)).toBeNull();
    expect(addressRefusal('127.0.0.1', 'hooks.internal', allowed)).toBeNull();
    expect(addressRefusal('10.0.0.5', 'evil.example', allowed)).toBe('evil.example resolves to 10.0.0.5, a private address');
    expect(addressRefusal('10.0.0.5', 'sub.hooks.internal', allowed)).not.toBeNull();
  });

  test('an IP allows that address (and its IPv4-mapped form) through any host', () => {
    const allowed = allow('127.0.0.1,fd00::5');
    expect(addressRefusal('127.0.0.1', 'localhost', allowed)).toBeNull();
    expect(addressRefusal('::ffff:127.0.0.1', 'localhost', allowed)).toBeNull();
    expect(addressRefusal('fd00::5', 'x.example', allowed)).toBeNull();
    expect(addressRefusal('127.0.0.2', '127.0.0.2', allowed)).toBe('127.0.0.2, a loopback address');
    expect(addressRefusal('fd00::6', 'x.example', allowed)).toBe('x.example resolves to fd00::6, a private address');
  });

  test('a CIDR allows its range, v4 and v6', () => {
    const allowed = allow('10.20.0.0/16, fd00:abcd::/32');
    expect(addressRefusal('10.20.255.1', 'a.example', allowed)).toBeNull();
    expect(addressRefusal('10.21.0.1', 'a.example', allowed)).not.toBeNull();
    expect(addressRefusal('fd00:abcd:1::9', 'a.example', allowed)).toBeNull();
    expect(addressRefusal('fd00:abce::9', 'a.example', allowed)).not.toBeNull();
    // The metadata address stays refused unless it is itself in a listed range.
    expect(addressRefusal('169.254.169.254', 'a.example', allowed)).toBe('a.example resolves to 169.254.169.254, a metadata address');
  });

  test('empty: nothing allowed; blanks and empty items are ignored', () => {
    expect(allow('').entries).toEqual([]);
    expect(allow(' , ,').entries).toEqual([]);
    expect(allow('a.example,,10.0.0.0/8').entries).toEqual(['a.example', '10.0.0.0/8']);
  });

  test('every bad entry is named', () => {
    expect(parseAllowedTargets('http://a.example, a.example:8080, 10.0.0.0/33, ::1/129, 10.0.0.0/x, [::1], fe80::1%eth0, ok.example, 1.2.3, *.example')).toEqual({
      ok: false,
      errors: [
        '"http://a.example" is no CIDR (an IPv4 or IPv6 address, "/" and a prefix length of at most 32 or 128)',
        '"a.example:8080" is neither a host name, an IP address nor a CIDR (no scheme, port or brackets)',
        '"10.0.0.0/33" is no CIDR (an IPv4 or IPv6 address, "/" and a prefix length of at most 32 or 128)',
        '"::1/129" is no CIDR (an IPv4 or IPv6 address, "/" and a prefix length of at most 32 or 128)',
        '"10.0.0.0/x" is no CIDR (an IPv4 or IPv6 address, "/" and a prefix length of at most 32 or 128)',
        '"[::1]" is neither a host name, an IP address nor a CIDR (no scheme, port or brackets)',
        '"fe80::1%eth0" carries a zone: list the address without it',
        '"1.2.3" is neither a host name, an IP address nor a CIDR (no scheme, port or brackets)',
        '"*.example" is neither a host name, an IP address nor a CIDR (no scheme, port or brackets)',
      ],
    });
    expect(() => parseAllowedTargetsOrThrow('a b')).toThrow('WEBHOOK_ALLOWED_TARGETS: "a b" is neither a host name');
  });
});
