import { HostPatternError, parseHostPattern } from "../capability/host-pattern.ts";

/**
 * Why an entry of `web.fetch.allowPrivateHosts` could never let web_fetch reach a host, or would
 * open every private address, with how to write it; undefined when it is fine. Entries are
 * written as the hosts of a plugin's `requires.net.hosts` (`host`, `host:port`, `host:*`,
 * `*.domain`), and were once matched by a looser reading that silently ignored a URL or `host:*`.
 */
export function privateHostProblem(entry: string): string | undefined {
  try {
    const pattern = parseHostPattern(entry);
    if (pattern.kind === "any")
      return `"${entry}" would let web_fetch reach every loopback and private address (a page could then probe your network). Name the hosts, e.g. "localhost:3000" or "*.dev.internal".`;
    return undefined;
  } catch (err) {
    if (err instanceof HostPatternError) return err.message;
    throw err;
  }
}
