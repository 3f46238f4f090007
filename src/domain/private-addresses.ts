/**
 * Which addresses a hosted sandbox must not POST webhooks to (SANDBOX_WEBHOOK_PRIVATE=deny): every
 * range of IANA's IPv4 and IPv6 special-purpose address registries (loopback, private, shared,
 * link-local, documentation, benchmarking, multicast, reserved, translation and tunnel prefixes),
 * also when written as an IPv6 form that carries an IPv4 address (mapped, compatible, NAT64,
 * 6to4), since each reaches that IPv4; and, given them, the instance's own addresses.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const IPV4_SPECIAL: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.31.196.0', 24], ['192.52.193.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16],
  ['192.175.48.0', 24], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const IPV6_SPECIAL: readonly (readonly [string, number])[] = [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23],
  ['2001:db8::', 32], ['2002::', 16], ['2620:4f:8000::', 48], ['3fff::', 20], ['5f00::', 16], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
];

function specialRanges(): BlockList {
  const ranges = new BlockList();
  for (const [network, prefix] of IPV4_SPECIAL) ranges.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of IPV6_SPECIAL) ranges.addSubnet(network, prefix, 'ipv6');
  return ranges;
}

const SPECIAL_RANGES = specialRanges();

/** ::ffff:0:0/96, IPv4-mapped: not in the list above, where BlockList would match every IPv4 address against it. */
export const isMapped = (b: readonly number[]): boolean => b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

/** True for an address the sandbox must not connect to; anything that is not an IP address counts as one. */
export function isPrivateAddress(address: string): boolean {
  return isRefusedTarget(address, []);
}

/** isPrivateAddress, and also any of `own` (the instance's addresses) in whatever form an IPv6 address carries it. */
export function isRefusedTarget(address: string, own: readonly string[]): boolean {
  const ranges = own.length === 0 ? SPECIAL_RANGES : withOwn(own);
  if (isIPv4(address)) return ranges.check(address, 'ipv4');
  const plain = address.split('%')[0]!;
  if (!isIPv6(plain)) return true;
  if (isMapped(ipv6Bytes(plain))) return true;
  if (embeddedIPv4(plain).some((v4) => ranges.check(v4, 'ipv4'))) return true;
  return ranges.check(plain, 'ipv6');
}

/** The special ranges and the given addresses, in one list. */
function withOwn(own: readonly string[]): BlockList {
  const ranges = specialRanges();
  for (const address of own) {
    const plain = address.split('%')[0]!;
    if (isIPv4(plain)) ranges.addAddress(plain, 'ipv4');
    else if (isIPv6(plain)) ranges.addAddress(plain, 'ipv6');
  }
  return ranges;
}

/** The 16 bytes of a valid IPv6 address (a trailing dotted quad included). */
export function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const words = [...left, ...Array<string>(tail === undefined ? 0 : 8 - left.length - right.length).fill('0'), ...right].map((w) => parseInt(w, 16));
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

const zero = (bytes: readonly number[]): boolean => bytes.every((b) => b === 0);
const v4At = (b: readonly number[], at: readonly number[]): string => at.map((i) => b[i]).join('.');

/** The IPv4 addresses an IPv6 address reaches through the forms that embed one (none for a plain IPv6). */
function embeddedIPv4(address: string): string[] {
  const b = ipv6Bytes(address);
  const last = v4At(b, [12, 13, 14, 15]);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible; :: and ::1 read as 0.0.0.0 and 0.0.0.1, refused too).
  if (zero(b.slice(0, 10)) && ((b[10] === 0xff && b[11] === 0xff) || (b[10] === 0 && b[11] === 0))) return [last];
  // NAT64, well-known prefix 64:ff9b::/96 (RFC 6052).
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(b.slice(4, 12))) return [last];
  // NAT64, local-use prefix 64:ff9b:1::/48 (RFC 8215): the IPv4 sits where each prefix length of
  // RFC 6052 puts it (bits 64-71 zero); only lengths whose trailing bytes are zero can apply.
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b[4] === 0 && b[5] === 1) {
    const forms: [number[], number][] = [[[6, 7, 9, 10], 11], [[7, 9, 10, 11], 12], [[9, 10, 11, 12], 13]];
    const fit = forms.filter(([, rest]) => b[8] === 0 && zero(b.slice(rest))).map(([at]) => v4At(b, at));
    return [...fit, last];
  }
  // 6to4, 2002:a.b.c.d::/48.
  if (b[0] === 0x20 && b[1] === 0x02) return [v4At(b, [2, 3, 4, 5])];
  return [];
}
