import { createHash } from "node:crypto";
import type { PluginFile, PluginSource } from "./plugin-source.ts";

function part(label: string, file: PluginFile): string {
  const body =
    file.text ?? `<${file.problem ?? "missing"}${file.size === undefined ? "" : ` ${file.size} bytes`}>`;
  return `${label}\u0000${Buffer.byteLength(body, "utf8")}\u0000${body}\u0000`;
}

/**
 * The content hash of a plugin, pinned when the user trusts a project: sha256 over tool.yaml,
 * TOOL.md, the entry's name and the entry file, each length-prefixed so no edit can move bytes
 * from one file to another unnoticed. A missing or unreadable file hashes as its absence.
 */
export function hashPluginSource(source: PluginSource): string {
  return createHash("sha256")
    .update(part("tool.yaml", source.yaml))
    .update(part("TOOL.md", source.toolMd))
    .update(`entry\u0000${source.entryName}\u0000`)
    .update(part(source.entryName, source.entry))
    .digest("hex");
}
