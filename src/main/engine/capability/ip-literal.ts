// Node's IP address parsers (net.isIP, isIPv4, isIPv6), taken from node:net when first asked:
// loading that module brings Node's socket machinery, which a start that checks no address (a
// `lathe tools` whose output is a file) does not need.
import type NodeNet from "node:net";

function net(): typeof NodeNet {
  return process.getBuiltinModule("node:net");
}

/** Whether `text` is an IP address: 4, 6, or 0 for neither. */
export function isIP(text: string): 0 | 4 | 6 {
  return net().isIP(text) as 0 | 4 | 6;
}

export function isIPv4(text: string): boolean {
  return net().isIPv4(text);
}

export function isIPv6(text: string): boolean {
  return net().isIPv6(text);
}
