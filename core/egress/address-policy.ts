import net from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

export interface AddressPolicy {
  /** Whether an outbound connection may go to `ip` (a literal address, as DNS or the URL parser gives it). */
  check(ip: string): AddressVerdict;
}

/**
 * Ranges an outbound call must not reach by default: the host itself, the private
 * networks around it, cloud metadata endpoints and addresses that are not unicast.
 * The more specific entries come first so the reason names the sharpest match.
 * Cloud metadata lives in ranges listed here: 169.254.169.254 (AWS, GCP, Azure),
 * fd00:ec2::254 (AWS IPv6), 100.100.100.200 (Alibaba), 192.0.0.192 (Oracle).
 */
const REFUSED_RANGES: Array<{ cidr: Cidr; text: string; reason: string }> = [
  ['169.254.169.254/32', 'a cloud metadata address'],
  ['255.255.255.255/32', 'the broadcast address'],
  ['0.0.0.0/8', '"this network" (0.0.0.0/8)'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'the unspecified address'],
  ['::1/128', 'loopback'],
  // IPv4-compatible addresses (deprecated): some stacks still route ::a.b.c.d to a.b.c.d.
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  // Teredo hides the IPv4 peer (obfuscated), so its target cannot be checked.
  ['2001::/32', 'Teredo'],
  ['2001:db8::/32', 'documentation'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
].map(([text, reason]) => ({ cidr: ipaddr.parseCIDR(text), text, reason }));

/**
 * IPv6 ranges whose packets end up at an IPv4 address written inside them: a NAT64
 * gateway or a 6to4 relay forwards to it, so the embedded address is what must pass.
 */
const EMBEDDING_RANGES: Array<{ cidr: Cidr; name: string; ipv4At: number }> = [
  { cidr: ipaddr.parseCIDR('64:ff9b::/96'), name: 'NAT64', ipv4At: 12 },
  { cidr: ipaddr.parseCIDR('2002::/16'), name: '6to4', ipv4At: 2 },
];

/**
 * Parses an operator's CIDR (`10.0.0.0/8`, `fd00::/8`, or a bare address meaning
 * just that host). Strict on purpose: IPv4 must be four decimal parts, so a config
 * value never means something other than what it looks like (`0177.0.0.1` is refused
 * rather than read as octal).
 */
export function parseCidr(text: string): Cidr {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const addressText = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const prefixText = slash === -1 ? undefined : trimmed.slice(slash + 1);
  const family = net.isIP(addressText);
  if (family === 0) throw new Error(`"${text}" is not a CIDR (expected e.g. 10.0.0.0/8 or fd00::/8)`);
  const bits = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) throw new Error(`"${text}" has an invalid prefix length`);
  if (prefix > bits) throw new Error(`"${text}" has a prefix longer than ${bits} bits`);
  const address = ipaddr.parse(addressText);
  // An allowance written as ::ffff:a.b.c.d/n means IPv4 a.b.c.d/(n-96); mapped addresses are checked as IPv4.
  if (address.kind() === 'ipv6' && prefix >= 96 && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return [(address as ipaddr.IPv6).toIPv4Address(), prefix - 96];
  }
  return [address, prefix];
}

/** The refusal rules, with the operator's allowed CIDRs (EGRESS_ALLOW_CIDRS) taking precedence. */
export function createAddressPolicy(allowCidrs: readonly string[] = []): AddressPolicy {
  const allowed = allowCidrs.filter((text) => text.trim() !== '').map(parseCidr);
  const isAllowed = (address: Address) => allowed.some((cidr) => sameKind(address, cidr) && address.match(cidr));

  const check = (ip: string): AddressVerdict => {
    const literal = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
    if (net.isIP(literal) === 0) return { allowed: false, reason: `${ip} is not an IP address` };
    let address: Address = ipaddr.parse(literal);
    // ::ffff:a.b.c.d is how a dual-stack socket reaches IPv4 a.b.c.d: judge it as that address.
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
    if (isAllowed(address)) return { allowed: true };

    if (address.kind() === 'ipv6') {
      for (const range of EMBEDDING_RANGES) {
        if (!address.match(range.cidr)) continue;
        const bytes = address.toByteArray().slice(range.ipv4At, range.ipv4At + 4);
        const embedded = new ipaddr.IPv4(bytes).toString();
        const verdict = check(embedded);
        return verdict.allowed ? verdict : { allowed: false, reason: `${literal} is a ${range.name} address of ${embedded}; ${verdict.reason}` };
      }
    }
    for (const range of REFUSED_RANGES) {
      if (sameKind(address, range.cidr) && address.match(range.cidr)) {
        return { allowed: false, reason: `${address.toString()} is ${range.reason} (${range.text})` };
      }
    }
    return { allowed: true };
  };

  return { check };
}

function sameKind(address: Address, cidr: Cidr): boolean {
  return address.kind() === cidr[0].kind();
}
