import { statSync } from "node:fs";
import type { McpStdioConfig } from "./mcp-command-line.ts";
import { serverCommandFiles } from "../policy/protected-paths.ts";

/**
 * What the files a stdio server starts from are now: the program found on its PATH and each file
 * its command line names (its script), by path, inode, size and change times. Two starts with the
 * same stamps run the same code; an edit of the script or a program installed over the old one
 * changes them, so a server kept running since before (see OpenedTransport.identity) is not
 * handed on in place of one that would run the new code. A file that cannot be looked at counts
 * by its path alone (the start itself says what is wrong with it).
 */
export function startFileStamps(config: McpStdioConfig, root: string, program: string | undefined): string[] {
  const files = [
    ...new Set([...(program === undefined ? [] : [program]), ...serverCommandFiles(config, root)]),
  ];
  return files.map((file) => {
    const stat = statSync(file, { bigint: true, throwIfNoEntry: false });
    if (!stat) return file;
    return [file, stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs].join("\u0000");
  });
}
