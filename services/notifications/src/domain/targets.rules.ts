import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks may be sent (docs/decisions.md, "Webhook deliveries"): http or https URLs
 * whose every address is public. Loopback, private, link-local, metadata and every other
 * special-purpose address is refused unless the operator lists it in
 * WEBHOOK_ALLOWED_TARGETS. Pure: the sender (data-access/webhook-sender.ts) resolves the
 * names and asks these rules at every connection.
 */

export const URL_MAX_LENGTH = 2048;

/** WEBHOOK_ALLOWED_TARGETS parsed: host names (exact, lower case) and addresses or ranges. */
export interface AllowedTargets {
  /** The entries as written, for logs and error messages. */
  entries: readonly string[];
  hosts: ReadonlySet<string>;
  /** IPs and CIDRs; an IPv4 entry also matches its IPv4-mapped IPv6 form (BlockList does that). */
  addresses: BlockList;
}

export const NO_ALLOWED_TARGETS: AllowedTargets = parseAllowedTargetsOrThrow('');

/**
 * WEBHOOK_ALLOWED_TARGETS: comma-separated host names, IPs and CIDRs (v4 or v6); blanks
 * around items and empty items are ignored. Every bad entry is named.
 */
export function parseAllowedTargets(text: string): { ok: true; allowed: AllowedTargets } | { ok: false; errors: string[] } {
  const entries: string[] = [];
  const hosts = new Set<string>();
  const addresses = new BlockList();
  const errors: string[] = [];
  for (const item of text.split(',')) {
    const entry = item.trim();
    if (entry === '') continue;
    entries.push(entry);
    const slash = entry.indexOf('/');
    if (slash >= 0) {
      const ip = entry.slice(0, slash);
      const bits = entry.slice(slash + 1);
      const family = isIP(ip);
      const max = family === 6 ? 128 : 32;
      if (family === 0 || !/^[0-9]{1,3}$/.test(bits) || Number(bits) > max) {
        errors.push(`"${shown(entry)}" is no CIDR (an IPv4 or IPv6 address, "/" and a prefix length of at most 32 or 128)`);
      } else {
        addresses.addSubnet(ip, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
      }
    } else if (isIP(entry) !== 0) {
      if (entry.includes('%')) errors.push(`"${shown(entry)}" carries a zone: list the address without it`);
      else addresses.addAddress(entry, isIP(entry) === 6 ? 'ipv6' : 'ipv4');
    } else if (isHostName(entry)) {
      hosts.add(normalHost(entry));
    } else {
      errors.push(`"${shown(entry)}" is neither a host name, an IP address nor a CIDR (no scheme, port or brackets)`);
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, allowed: { entries, hosts, addresses } };
}

export function parseAllowedTargetsOrThrow(text: string): AllowedTargets {
  const parsed = parseAllowedTargets(text);
  if (!parsed.ok) throw new Error(`WEBHOOK_ALLOWED_TARGETS: ${parsed.errors.join('; ')}`);
  return parsed.allowed;
}

/**
 * Why a webhook URL is refused before any name is resolved, as a message about the field
 * `url`; null when its form is acceptable. Credentials in the URL are refused: they would be
 * kept and shown as part of the URL, and the signature already proves who sends.
 */
export function urlRefusal(url: string): string | null {
  if (url.length > URL_MAX_LENGTH) return `must be at most ${URL_MAX_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
  if (hostOf(parsed) === '') return 'must name a host';
  if (parsed.username !== '' || parsed.password !== '') return 'must not hold a user name or password';
  return null;
}

/** The host of a URL as the sender connects to it: lower case, an IPv6 address without brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** The classes of addresses webhooks never reach unless allowed. */
export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'carrier-grade NAT'
  | 'link-local'
  | 'metadata'
  | 'multicast'
  | 'broadcast'
  | 'reserved';

/**
 * Why a webhook may not connect to `ip` (an address `host` resolved to, or `host` itself),
 * naming its class; null when it is public or allowed (by host name, address or range).
 */
export function addressRefusal(ip: string, host: string, allowed: AllowedTargets): string | null {
  if (allowed.hosts.has(normalHost(host))) return null;
  const family = isIP(ip);
  if (family === 0) return `${ip.slice(0, 100)} is not an IP address`;
  // Only link-local addresses take a zone (fe80::1%eth0).
  if (ip.includes('%')) return `${subject(ip, host)}, a link-local address`;
  if (allowed.addresses.check(ip, family === 6 ? 'ipv6' : 'ipv4')) return null;
  const found = addressClass(ip);
  return found === null ? null : `${subject(ip, host)}, ${ARTICLE[found]} ${found} address`;
}

const subject = (ip: string, host: string) => (normalHost(host) === ip.toLowerCase() ? ip : `${normalHost(host)} resolves to ${ip}`);

const ARTICLE: Record<AddressClass, 'a' | 'an'> = {
  unspecified: 'an',
  loopback: 'a',
  private: 'a',
  'carrier-grade NAT': 'a',
  'link-local': 'a',
  metadata: 'a',
  multicast: 'a',
  broadcast: 'a',
  reserved: 'a',
};

/**
 * The class of a special-purpose address (IANA's IPv4 and IPv6 special-purpose registries,
 * and the cloud metadata endpoints), null for a public one. An IPv6 address that carries an
 * IPv4 one (IPv4-mapped, NAT64 64:ff9b::/96, 6to4) is judged by the IPv4 address it reaches;
 * any other IPv6 address outside 2000::/3, the global unicast range, is reserved.
 */
export function addressClass(ip: string): AddressClass | null {
  const family = isIP(ip);
  if (family === 4) return classOf(ipv4Bytes(ip), V4_CLASSES);
  if (family !== 6) throw new Error(`not an IP address: ${ip.slice(0, 100)}`);
  const bytes = ipv6Bytes(ip.replace(/%.*$/, ''));
  const embedded = embeddedIPv4(bytes);
  if (embedded) return classOf(embedded, V4_CLASSES);
  const found = classOf(bytes, V6_CLASSES);
  if (found) return found;
  return (bytes[0]! & 0xe0) === 0x20 ? null : 'reserved';
}

type Range = { bytes: number[]; bits: number; cls: AddressClass };

const v4 = (cidr: string, cls: AddressClass): Range => {
  const [ip, bits] = cidr.split('/') as [string, string];
  return { bytes: ipv4Bytes(ip), bits: Number(bits), cls };
};
const v6 = (cidr: string, cls: AddressClass): Range => {
  const [ip, bits] = cidr.split('/') as [string, string];
  return { bytes: ipv6Bytes(ip), bits: Number(bits), cls };
};

/** First match wins: the narrow ranges (metadata, broadcast) come before those holding them. */
const V4_CLASSES: Range[] = [
  v4('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure, OpenStack, DigitalOcean...
  v4('169.254.170.2/32', 'metadata'), // AWS ECS task metadata
  v4('100.100.100.200/32', 'metadata'), // Alibaba Cloud
  v4('192.0.0.192/32', 'metadata'), // Oracle Cloud
  v4('255.255.255.255/32', 'broadcast'),
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'carrier-grade NAT'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments
  v4('192.0.2.0/24', 'reserved'), // documentation
  v4('192.31.196.0/24', 'reserved'), // AS112
  v4('192.52.193.0/24', 'reserved'), // AMT
  v4('192.88.99.0/24', 'reserved'), // 6to4 relays (deprecated)
  v4('192.168.0.0/16', 'private'),
  v4('192.175.48.0/24', 'reserved'), // AS112
  v4('198.18.0.0/15', 'reserved'), // benchmarking
  v4('198.51.100.0/24', 'reserved'), // documentation
  v4('203.0.113.0/24', 'reserved'), // documentation
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
];

const V6_CLASSES: Range[] = [
  v6('fd00:ec2::254/128', 'metadata'), // AWS
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('64:ff9b:1::/48', 'private'), // local-use NAT64
  v6('::/8', 'reserved'), // IPv4-compatible and other reserved forms (IPv4-mapped and NAT64 are judged before)
  v6('100::/64', 'reserved'), // discard-only
  v6('2001::/23', 'reserved'), // IETF protocol assignments: Teredo, benchmarking, ORCHID
  v6('2001:db8::/32', 'reserved'), // documentation
  v6('3fff::/20', 'reserved'), // documentation
  v6('5f00::/16', 'reserved'), // SRv6 SIDs
  v6('fc00::/7', 'private'), // unique local
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'private'), // site-local (deprecated)
  v6('ff00::/8', 'multicast'),
];

function classOf(bytes: number[], ranges: Range[]): AddressClass | null {
  for (const range of ranges) if (within(bytes, range)) return range.cls;
  return null;
}

function within(bytes: number[], range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i]! & mask) !== (range.bytes[i]! & mask)) return false;
  }
  return true;
}

/** The IPv4 address an IPv6 one carries: IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16). */
function embeddedIPv4(bytes: number[]): number[] | null {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return bytes.slice(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6);
  return null;
}

function ipv4Bytes(ip: string): number[] {
  return ip.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (isIP already said it is one). */
function ipv6Bytes(ip: string): number[] {
  let text = ip.toLowerCase();
  const tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...ipv4Bytes(dotted[1]!));
    text = `${text.slice(0, dotted.index)}:0:0`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const words = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length > 0) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** A DNS name: letters, digits, hyphens and underscores in dot-separated labels (a final dot allowed). */
function isHostName(text: string): boolean {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name.length === 0 || name.length > 253) return false;
  return name.split('.').every((label) => /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/.test(label)) && !/^[0-9.]+$/.test(name);
}

export function normalHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

function shown(entry: string): string {
  return entry.length > 80 ? `${entry.slice(0, 80)}…` : entry;
}
