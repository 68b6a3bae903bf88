import { matchingHostPattern } from "../../capability/host-pattern.ts";
import { isIP } from "../../capability/ip-literal.ts";
import { ToolCallError } from "../../errors/tool-call-error.ts";
import { nonPublicReason } from "./address-policy.ts";
import { untilAborted } from "./until-aborted.ts";
import { urlInMessage } from "./url-in-message.ts";

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolve a host name to every address it has (dns.lookup with `all: true` by default). */
export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>;

const systemLookup: LookupAll = (hostname) =>
  // Taken on first use: a start that resolves no name never loads the resolver.
  process.getBuiltinModule("node:dns/promises").lookup(hostname, { all: true });

/** A URL checked for fetching: the addresses to connect to, resolved once and validated. */
export interface FetchTarget {
  url: URL;
  /** The host without IPv6 brackets, as sent in `Host` and SNI. */
  hostname: string;
  addresses: ResolvedAddress[];
  /**
   * Why the host is not on the public internet ("10.0.0.7 is a private address (10.0.0.0/8)"),
   * when any address it resolved to is not: also for a host the person allowed, so a redirect
   * can tell a public page leading into a private network.
   */
  privateReason?: string;
}

/** Why an address is not on the public internet, or undefined when it is (see nonPublicReason). */
export type AddressClassifier = (address: string) => string | undefined;

export interface TargetPolicy {
  /** Hosts (or `host:port`) that may be on loopback or private networks: a local dev server. */
  allowPrivateHosts: readonly string[];
  lookup?: LookupAll;
  settingsFile?: string;
  /** Who is fetching, for messages (default "web_fetch"). */
  who?: string;
  /** How a person allows a refused private host (default: web.fetch.allowPrivateHosts in settings). */
  privateHint?(url: URL): string;
  /** Which addresses are private (default nonPublicReason; tests substitute one to play a public site). */
  classify?: AddressClassifier;
}

function bare(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

/**
 * Whether the user listed this URL's host (and port) as a private host web_fetch may reach. The
 * entries are written as host patterns (`host`, `host:port`, `host:*`, `*.domain`); `*` alone, or
 * an entry that is not a host, never matches (settings refuse both when they load).
 */
export function isAllowedPrivateHost(url: URL, allowPrivateHosts: readonly string[]): boolean {
  return allowPrivateHosts.some((entry) => {
    const pattern = matchingHostPattern([entry], url);
    return pattern !== undefined && pattern.kind !== "any";
  });
}

/** Refuse what web_fetch never fetches, whatever the address: other schemes and URLs with credentials. */
export function checkFetchableUrl(url: URL, who = "web_fetch"): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    const local = url.protocol === "file:" ? " Read local files with the read tool instead." : "";
    throw new ToolCallError(
      `${who} only fetches http:// and https:// URLs; ${urlInMessage(url)} uses ${url.protocol.replace(/:$/, "")}.${local}`,
      "unsupported_url",
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new ToolCallError(
      `${who} does not send credentials written into a URL (${url.protocol}//${url.username ? "user" : ""}${url.password ? ":…" : ""}@${url.host}). Remove the "user:password@" part and fetch the public URL.`,
      "unsupported_url",
    );
  }
  if (url.hostname === "")
    throw new ToolCallError(
      `${urlInMessage(url)} has no host. Give a full URL like https://example.com/page.`,
    );
}

/** Parse a URL the model gave, with a message saying how to fix it when it is not one. */
export function parseFetchUrl(text: string): URL {
  try {
    return new URL(text.trim());
  } catch {
    throw new ToolCallError(
      `"${text}" is not a valid URL. Give a full http:// or https:// URL, e.g. https://example.com/page.`,
      "invalid_url",
    );
  }
}

function howToAllow(url: URL, settingsFile: string): string {
  return `If this is a local server you mean to reach, a person can add "${url.host}" to web.fetch.allowPrivateHosts in ${settingsFile}.`;
}

function refuseAddress(url: URL, policy: TargetPolicy, detail: string): never {
  const hint = policy.privateHint
    ? policy.privateHint(url)
    : howToAllow(url, policy.settingsFile ?? "~/.lathe/settings.json");
  throw new ToolCallError(
    `${policy.who ?? "web_fetch"} refuses ${urlInMessage(url)}: ${detail}, not the public internet. ${hint}`,
    "address_refused",
  );
}

/**
 * Refuse a host the URL itself shows is not on the public internet — an address (`127.0.0.1`,
 * `[::1]`, `10.0.0.7`) or `localhost` — unless it is allowed, without resolving anything. So it
 * can be said before a person is asked to approve a fetch that would be refused anyway; a name
 * that resolves to such an address is refused when it is resolved (resolveFetchTarget).
 */
export function checkHostAsWritten(url: URL, policy: TargetPolicy): void {
  if (isAllowedPrivateHost(url, policy.allowPrivateHosts)) return;
  const hostname = bare(url.hostname);
  if (isIP(hostname) !== 0) {
    const reason = (policy.classify ?? nonPublicReason)(hostname);
    if (reason !== undefined) refuseAddress(url, policy, `${hostname} is ${reason}`);
    return;
  }
  const name = hostname.toLowerCase().replace(/\.+$/, "");
  if (name === "localhost" || name.endsWith(".localhost"))
    refuseAddress(url, policy, `${url.hostname} names this machine (loopback)`);
}

/**
 * Resolve a URL's host once and check every address it resolves to: loopback, private,
 * link-local, multicast, reserved and unspecified addresses are refused (in any spelling: the
 * WHATWG parser has already turned `127.1`, `0x7f.1` and `2130706433` into `127.0.0.1`), unless
 * the host is in `allowPrivateHosts`. The caller connects only to the returned addresses, so a
 * DNS answer that changes between this check and the connection cannot redirect it.
 */
export async function resolveFetchTarget(
  url: URL,
  policy: TargetPolicy,
  signal: AbortSignal,
): Promise<FetchTarget> {
  const who = policy.who ?? "web_fetch";
  checkFetchableUrl(url, who);
  checkHostAsWritten(url, policy);
  const hostname = bare(url.hostname);
  const allowed = isAllowedPrivateHost(url, policy.allowPrivateHosts);
  const refuse = (detail: string): never => refuseAddress(url, policy, detail);

  let addresses: ResolvedAddress[];
  const family = isIP(hostname);
  if (family !== 0) {
    addresses = [{ address: hostname, family }];
  } else {
    try {
      addresses = await untilAborted((policy.lookup ?? systemLookup)(hostname), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new ToolCallError(
        `${who} could not resolve the host ${url.hostname}${code ? ` (${code})` : ""}. Check the URL's spelling, or that the site exists.`,
        "dns_failed",
        { cause: err },
      );
    }
    if (addresses.length === 0) {
      throw new ToolCallError(
        `${who} could not resolve the host ${url.hostname}: it has no addresses.`,
        "dns_failed",
      );
    }
  }
  const classify = policy.classify ?? nonPublicReason;
  for (const { address } of addresses) {
    const reason = classify(address);
    if (reason === undefined) continue;
    const detail =
      address === hostname ? `${address} is ${reason}` : `${url.hostname} resolves to ${address}, ${reason}`;
    if (!allowed) refuse(detail);
    return { url, hostname, addresses, privateReason: `${address} is ${reason}` };
  }
  return { url, hostname, addresses };
}
