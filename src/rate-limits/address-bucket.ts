/**
 * The flood-control bucket of a caller's address, from CF-Connecting-IP alone: Cloudflare's edge sets and
 * overwrites it, while X-Forwarded-For, X-Real-IP and True-Client-IP are whatever the caller wrote. An IPv6
 * address counts as its /64 (one subscriber is usually handed a whole /64 and could move inside it at will);
 * an IPv4 address, also written IPv4-mapped, as itself. Without the header (a local request) every caller
 * shares one bucket.
 */
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;

/** The eight groups of an IPv6 address (an embedded IPv4 tail counts as two), or undefined when it is not one. */
function ipv6Groups(address: string): string[] | undefined {
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (text: string) => (text === '' ? [] : text.split(':').flatMap((group) => (IPV4.test(group) ? ['0', '0'] : [group])));
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  return groups.every((group) => HEX_GROUP.test(group)) ? groups : undefined;
}

export function addressBucket(header: string | null): string {
  const address = (header ?? '').trim().toLowerCase().replace(/%.*$/, '');
  if (address === '') return 'local';
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped) return mapped[1];
  if (IPV4.test(address)) return address;
  const groups = ipv6Groups(address);
  if (!groups) return `other:${address.slice(0, 64)}`;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
