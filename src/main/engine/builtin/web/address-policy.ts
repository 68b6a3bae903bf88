import { isIP } from "../../capability/ip-literal.ts";

interface Range {
  bytes: number[];
  bits: number;
  /** What an address in the range is, as a person reads it in a refusal. */
  what: string;
}

function ipv4Bytes(text: string): number[] {
  return text.split(".").map(Number);
}

/** The 16 bytes of an IPv6 address (any valid spelling: compressed, zone id, dotted IPv4 tail). */
function ipv6Bytes(text: string): number[] {
  let s = text.replace(/%.*$/, "").toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const [a, b, c, d] = ipv4Bytes(dotted[1] as string) as [number, number, number, number];
    s = `${s.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split("::") as [string, string | undefined];
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

/** One row of the tables below (written here, so a colon tells the families apart without isIP,
 * whose first call compiles a large pattern: every start would pay for it). */
function range(cidr: string, what: string): Range {
  const [net, bits] = cidr.split("/") as [string, string];
  return { bytes: net.includes(":") ? ipv6Bytes(net) : ipv4Bytes(net), bits: Number(bits), what };
}

function inRange(bytes: readonly number[], r: Range): boolean {
  let left = r.bits;
  for (let i = 0; left > 0; i++, left -= 8) {
    const mask = left >= 8 ? 0xff : (0xff << (8 - left)) & 0xff;
    if (((bytes[i] as number) & mask) !== ((r.bytes[i] as number) & mask)) return false;
  }
  return true;
}

/** IPv4 ranges that are not the public internet (IANA special-purpose registry), most specific first. */
const IPV4: readonly Range[] = [
  range("0.0.0.0/32", "the unspecified address"),
  range("0.0.0.0/8", 'a "this network" address (0.0.0.0/8)'),
  range("10.0.0.0/8", "a private address (10.0.0.0/8)"),
  range("100.64.0.0/10", "a shared carrier-grade NAT address (100.64.0.0/10)"),
  range("127.0.0.0/8", "a loopback address (127.0.0.0/8)"),
  range("169.254.0.0/16", "a link-local address (169.254.0.0/16, where cloud metadata services live)"),
  range("172.16.0.0/12", "a private address (172.16.0.0/12)"),
  range("192.0.0.0/24", "a reserved protocol-assignment address (192.0.0.0/24)"),
  range("192.0.2.0/24", "a documentation address (192.0.2.0/24)"),
  range("192.88.99.0/24", "a reserved 6to4 relay address (192.88.99.0/24)"),
  range("192.168.0.0/16", "a private address (192.168.0.0/16)"),
  range("198.18.0.0/15", "a reserved benchmarking address (198.18.0.0/15)"),
  range("198.51.100.0/24", "a documentation address (198.51.100.0/24)"),
  range("203.0.113.0/24", "a documentation address (203.0.113.0/24)"),
  range("224.0.0.0/4", "a multicast address (224.0.0.0/4)"),
  range("255.255.255.255/32", "the broadcast address"),
  range("240.0.0.0/4", "a reserved address (240.0.0.0/4)"),
];

/** IPv6 ranges refused outright; the ones that embed an IPv4 address are judged by it instead. */
const IPV6: readonly Range[] = [
  range("::/128", "the unspecified address (::)"),
  range("::1/128", "the loopback address (::1)"),
  range("64:ff9b:1::/48", "a local-use NAT64 address (64:ff9b:1::/48)"),
  range("100::/64", "a discard-only address (100::/64)"),
  range("2001::/32", "a Teredo tunnel address (2001::/32)"),
  range("2001::/23", "a reserved protocol-assignment address (2001::/23)"),
  range("2001:db8::/32", "a documentation address (2001:db8::/32)"),
  range("3fff::/20", "a documentation address (3fff::/20)"),
  range("5f00::/16", "a reserved segment-routing address (5f00::/16)"),
  range("fc00::/7", "a private unique-local address (fc00::/7)"),
  range("fe80::/10", "a link-local address (fe80::/10)"),
  range("fec0::/10", "a private site-local address (fec0::/10)"),
  range("ff00::/8", "a multicast address (ff00::/8)"),
];

const GLOBAL_UNICAST = range("2000::/3", "");

/** IPv6 forms that carry an IPv4 address: where it sits, and what the form is called. */
const EMBEDDING: readonly { range: Range; offset: number }[] = [
  { range: range("::ffff:0:0/96", "an IPv4-mapped IPv6 form"), offset: 12 },
  { range: range("::/96", "an IPv4-compatible IPv6 form"), offset: 12 },
  { range: range("64:ff9b::/96", "a NAT64 IPv6 form"), offset: 12 },
  { range: range("2002::/16", "a 6to4 IPv6 form"), offset: 2 },
];

function classifyV4(bytes: readonly number[]): string | undefined {
  return IPV4.find((r) => inRange(bytes, r))?.what;
}

/**
 * Why an IP address is not on the public internet (e.g. "a loopback address (127.0.0.0/8)"), or
 * undefined when it is public. IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64,
 * 6to4) are judged by the address they carry. Anything that is not an IP address is refused.
 */
export function nonPublicReason(ip: string): string | undefined {
  const version = isIP(ip);
  if (version === 4) return classifyV4(ipv4Bytes(ip));
  if (version !== 6) return "not an IP address";
  const bytes = ipv6Bytes(ip);
  const exact = IPV6.slice(0, 2).find((r) => inRange(bytes, r));
  if (exact) return exact.what;
  for (const { range: r, offset } of EMBEDDING) {
    if (!inRange(bytes, r)) continue;
    const v4 = bytes.slice(offset, offset + 4);
    const inner = classifyV4(v4);
    if (inner) return `${r.what} of ${v4.join(".")}, ${inner}`;
    // A public IPv4 behind a deprecated compatible address is still not a normal destination.
    return r === EMBEDDING[1]?.range ? `${r.what} (::/96, deprecated)` : undefined;
  }
  const listed = IPV6.slice(2)
    .filter((r) => inRange(bytes, r))
    .sort((a, b) => b.bits - a.bits)[0];
  if (listed) return listed.what;
  if (!inRange(bytes, GLOBAL_UNICAST))
    return "a reserved address (outside the global unicast range 2000::/3)";
  return undefined;
}
