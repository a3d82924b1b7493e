/**
 * Refuses destinations that are not on the public internet: loopback, private, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved and unspecified addresses (IPv4 and IPv6, IPv4 embedded in IPv6
 * included) and the local-only names localhost, *.localhost, *.local, *.internal, *.home.arpa and
 * single-label names. Works on the hostname of a WHATWG-parsed URL, where numeric IPv4 forms
 * (127.1, 0x7f.1, 2130706433, 0177.0.0.1), percent-encoded and fullwidth dots are already written as
 * dotted decimal and plain dots. A hostname with an empty label (a..b.com, .a.com, 127.0.0.1..) is refused:
 * no public DNS name has one, and URL parsing leaves it as a name (127.0.0.1.. is not read as an address),
 * which a resolver may still read as the address once it drops the dots.
 *
 * A public name that resolves to a private address cannot be checked here (Workers have no DNS API);
 * Cloudflare's egress does not route Workers subrequests to private or internal networks
 * (docs/decisions.md, "Outbound calls").
 */
import ipaddr from 'ipaddr.js';

/** Special-use names (RFC 6761, 6762, 8375) and the de-facto internal TLD that never name a public host. */
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa'];

function ipv4Refusal(address: ipaddr.IPv4): string | undefined {
  const range = address.range();
  return range === 'unicast' ? undefined : `${address.toString()} is a ${range} address`;
}

function ipv6Refusal(address: ipaddr.IPv6): string | undefined {
  const range = address.range();
  // Only global unicast (2000::/3) is public. This also refuses every form that embeds an IPv4 address
  // (IPv4-mapped, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4, Teredo), whatever IPv4 it holds.
  const globalUnicast = (address.parts[0] & 0xe000) === 0x2000;
  if (range === 'unicast' && globalUnicast) return undefined;
  const kind = range === 'unicast' ? 'non-global' : range;
  return `${address.toRFC5952String()} is a ${kind} IPv6 address`;
}

function nameRefusal(name: string): string | undefined {
  if (!name.includes('.')) return `${name} is not a public hostname (a single label resolves only on a local network)`;
  const suffix = LOCAL_SUFFIXES.find((local) => name === local || name.endsWith(`.${local}`));
  return suffix ? `${name} is a local-only name (.${suffix})` : undefined;
}

/** Why the host (lowercase, no trailing dot) is not public, read as an IPv4 address, an IPv6 address or a name. */
function classify(host: string): string | undefined {
  if (ipaddr.IPv4.isValid(host)) return ipv4Refusal(ipaddr.IPv4.parse(host));
  if (ipaddr.IPv6.isValid(host)) return ipv6Refusal(ipaddr.IPv6.parse(host));
  return nameRefusal(host);
}

/** True when the name has an empty label; one trailing dot (the root, as in example.com.) is not one. */
function hasEmptyLabel(name: string): boolean {
  const labels = (name.endsWith('.') ? name.slice(0, -1) : name).split('.');
  return labels.some((label) => label === '');
}

/**
 * Why the host of a parsed URL is not a public destination, or undefined when it may be called.
 * `hostname` is URL.hostname: IPv6 in brackets, IPv4 as dotted decimal, names IDNA-encoded.
 */
export function privateHostRefusal(hostname: string): string | undefined {
  if (hostname.startsWith('[') && hostname.endsWith(']')) {
    const literal = hostname.slice(1, -1);
    if (!ipaddr.IPv6.isValid(literal)) return `${hostname} is not a valid IPv6 address`;
    return ipv6Refusal(ipaddr.IPv6.parse(literal));
  }
  // Classified without its trailing dots, so 127.0.0.1.. and localhost.. read as what a resolver may make of
  // them. URL parsing already rewrote numeric hosts as dotted decimal; ipaddr parses the other IPv4 forms
  // (127.1, 0x7f.1, 2130706433) too, which covers 0x7f.1.. and hostnames that did not come from a WHATWG URL.
  const name = hostname.toLowerCase();
  const host = name.replace(/\.+$/, '');
  const refusal = host ? classify(host) : undefined;
  if (refusal) return host === name || `${host}.` === name ? refusal : `${refusal} (written ${hostname})`;
  if (hasEmptyLabel(name)) return `${hostname} has an empty label (no public hostname has one; only a single trailing dot is allowed)`;
  return undefined;
}
