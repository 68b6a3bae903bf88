import { isIPv4, isIPv6 } from "./ip-literal.ts";

/**
 * net.isIP, asking the IPv6 parser only when there is a colon: its first call compiles a large
 * pattern, which every start paid for while checking plugins' host entries.
 */
function isIP(text: string): 0 | 4 | 6 {
  if (text.includes(":")) return isIPv6(text) ? 6 : 0;
  return isIPv4(text) ? 4 : 0;
}

/**
 * One entry of `requires.net.hosts`, parsed: `host`, `host:port` or `host:*`, where host is a
 * name (`api.example.com`), a subdomain wildcard (`*.example.com`), an IP address (`127.0.0.1`,
 * `[::1]`, `::1`) or `*` (any host). No port means any port. Hosts are compared in their
 * canonical form (lowercase, punycode, IPv4 in dotted decimal), never as string prefixes.
 */
export interface HostPattern {
  /** The entry as written. */
  text: string;
  kind: "any" | "suffix" | "name" | "ip";
  /** Canonical host (`name`, `ip`), or the suffix with its leading dot (`suffix`). */
  host: string;
  /** The one port allowed; undefined: any port. */
  port?: number;
}

/** A malformed host entry; the message says what is wrong and how to write it. */
export class HostPatternError extends Error {}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const BRACKETED = /^\[([^\]]+)\](?::(.*))?$/;

function fail(entry: string, why: string): never {
  throw new HostPatternError(
    `"${entry}" ${why}. Write a host with an optional port: "api.example.com", "api.example.com:8443", "*.example.com", "127.0.0.1:11434" or "[::1]:8080".`,
  );
}

function parsePort(entry: string, text: string | undefined): number | undefined {
  if (text === undefined || text === "*") return undefined;
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535)
    fail(entry, `has the port "${text}", which is not a number from 1 to 65535 (or * for any port)`);
  return Number(text);
}

/** The canonical form of a host name or address, as URLs carry it; undefined when it is none. */
function canonical(host: string): string | undefined {
  try {
    const name = new URL(`http://${isIP(host) === 6 ? `[${host}]` : host}/`).hostname;
    const bare = name.startsWith("[") ? name.slice(1, -1) : name;
    return bare.replace(/\.$/, "");
  } catch {
    return undefined;
  }
}

/** Parse one `requires.net.hosts` entry; throws HostPatternError naming what is wrong. */
export function parseHostPattern(entry: string): HostPattern {
  const text = entry.trim();
  if (text === "") fail(entry, "is empty");
  if (SCHEME.test(text)) fail(entry, "has a scheme (http://, https://): the entry names a host, not a URL");
  if (/[/?#@\s\\]/.test(text))
    fail(entry, "is not a bare host: it has a path, a query, credentials or spaces");
  let host: string;
  let portText: string | undefined;
  const bracketed = BRACKETED.exec(text);
  if (bracketed) {
    host = bracketed[1] as string;
    portText = bracketed[2];
    if (isIP(host) !== 6) fail(entry, "has brackets around something that is not an IPv6 address");
  } else if (isIP(text) === 6) {
    host = text;
  } else {
    const colon = text.lastIndexOf(":");
    host = colon < 0 ? text : text.slice(0, colon);
    portText = colon < 0 ? undefined : text.slice(colon + 1);
    if (host.includes(":"))
      fail(entry, "has more than one colon (write an IPv6 address with a port as [::1]:8080)");
  }
  const port = parsePort(entry, portText);
  const withPort = port === undefined ? {} : { port };
  if (host === "*") return { text: entry, kind: "any", host: "*", ...withPort };
  if (host.startsWith("*.")) {
    const rest = canonical(host.slice(2));
    if (rest === undefined || rest.includes("*") || isIP(rest) !== 0 || !rest.includes("."))
      fail(entry, "is a wildcard that does not end in a domain with a dot (e.g. *.example.com)");
    return { text: entry, kind: "suffix", host: `.${rest}`, ...withPort };
  }
  if (host.includes("*"))
    fail(
      entry,
      "has a * that is not the whole host or the first label (only * and *.example.com are wildcards)",
    );
  const name = canonical(host);
  if (name === undefined || name === "") fail(entry, "is not a valid host name or IP address");
  if (isIP(name) !== 0) {
    if (name === "0.0.0.0" || name === "::") fail(entry, "is the unspecified address, which names no server");
    return { text: entry, kind: "ip", host: name, ...withPort };
  }
  return { text: entry, kind: "name", host: name, ...withPort };
}

/** Parse every entry; throws HostPatternError for the first malformed one. */
export function parseHostPatterns(entries: readonly string[] | undefined): HostPattern[] {
  return (entries ?? []).map(parseHostPattern);
}

function hostMatches(pattern: HostPattern, host: string): boolean {
  switch (pattern.kind) {
    case "any":
      return true;
    case "suffix":
      return isIP(host) === 0 && host.endsWith(pattern.host);
    default:
      return host === pattern.host;
  }
}

/** The host of a URL as patterns compare it: canonical, no brackets, no trailing dot. */
export function urlHost(url: URL): string {
  const name = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return name.toLowerCase().replace(/\.$/, "");
}

/** The port a URL connects to (its own, or its scheme's default). */
function urlPort(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

function parsedOrNone(entry: string): HostPattern | undefined {
  try {
    return parseHostPattern(entry);
  } catch {
    // A malformed entry never matches (tool definitions are checked when they are registered).
    return undefined;
  }
}

/** The entry of `entries` that lets a URL's host and port through, if any. */
export function matchingHostPattern(entries: readonly string[], url: URL): HostPattern | undefined {
  const host = urlHost(url);
  const port = urlPort(url);
  for (const entry of entries) {
    const pattern = parsedOrNone(entry);
    if (pattern && hostMatches(pattern, host) && (pattern.port === undefined || pattern.port === port))
      return pattern;
  }
  return undefined;
}

/** Whether some entry names this host, whatever the port (for hosts seen without a URL). */
export function hostIsDeclared(entries: readonly string[], host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const name = canonical(bare.toLowerCase()) ?? bare.toLowerCase();
  return entries.some((entry) => {
    const pattern = parsedOrNone(entry);
    return pattern !== undefined && hostMatches(pattern, name);
  });
}
