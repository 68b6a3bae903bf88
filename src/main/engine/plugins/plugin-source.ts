import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { Document } from "yaml";
import { isWithin } from "../capability/canonical-path.ts";
import type { PluginFolder } from "./plugin-discovery.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import type { PluginManifest } from "./plugin-manifest.ts";
import type { PluginManifestCache } from "./plugin-manifest-cache.ts";

/** One of a plugin's files as read from disk: its text, or why there is none. */
export interface PluginFile {
  file: string;
  text?: string;
  problem?: "missing" | "too-large" | "outside" | "unreadable" | "unparsable";
  size?: number;
}

/** The three files of a plugin folder, read once; hashed, validated and run from this copy. */
export interface PluginSource {
  folder: PluginFolder;
  yaml: PluginFile;
  /**
   * tool.yaml parsed once (undefined when missing, or when `manifest` came from the cache);
   * parseManifest validates it.
   */
  yamlDoc: Document.Parsed | undefined;
  /** The manifest validated before for exactly this tool.yaml text (see plugin-manifest-cache.ts). */
  manifest?: PluginManifest;
  toolMd: PluginFile;
  /** The entry named by tool.yaml's `entry` (when it is a plain relative path), else index.js. */
  entryName: string;
  entry: PluginFile;
}

export const DEFAULT_ENTRY = "index.js";

/** A file URL for stack traces and syntax errors (`file:///…/index.js:2:13`). */
export function entryUrl(file: string): string {
  return `file://${file.split("\\").join("/")}`;
}

/** Whether an `entry` value names a .js/.mjs file inside the plugin folder, lexically. */
export function isPlainEntry(entry: string): boolean {
  if (entry.length === 0 || path.isAbsolute(entry) || entry.includes("\\") || entry.includes("\0"))
    return false;
  if (!/\.m?js$/.test(entry)) return false;
  return !entry.split("/").some((part) => part === ".." || part === "");
}

/**
 * One plugin file, read with the synchronous calls: the files are small (capped), and a start
 * reads three of every plugin. The promise calls cost a round trip through the thread pool each,
 * and readFile four (a file handle opened, stat, read, closed): with 50 plugins, a dozen
 * milliseconds of every start that the synchronous calls do in a few.
 */
function readPluginFile(
  file: string,
  nested: boolean,
  realDir: string | undefined,
  maxBytes: number,
): PluginFile {
  let real = file;
  try {
    let info = lstatSync(file);
    if (info.isSymbolicLink() || nested) {
      // A symlink out of the folder (say index.js -> ~/.ssh/id_rsa) is never read.
      real = realpathSync(file);
      if (!realDir || !isWithin(realDir, real)) return { file, problem: "outside" };
      info = statSync(real);
    }
    if (!info.isFile()) return { file, problem: "unreadable" };
    if (info.size > maxBytes) return { file, problem: "too-large", size: info.size };
    const text = readFileSync(real, "utf8");
    return { file, text, size: info.size };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { file, problem: code === "ENOENT" || code === "ENOTDIR" ? "missing" : "unreadable" };
  }
}

function entryNameOf(doc: Document.Parsed | undefined): string {
  if (!doc || doc.errors.length > 0) return DEFAULT_ENTRY;
  const entry = doc.get("entry");
  return typeof entry === "string" && isPlainEntry(entry) ? entry : DEFAULT_ENTRY;
}

/**
 * Read tool.yaml, TOOL.md and the entry file of a plugin folder (never throws). With a `cache`
 * that knows this tool.yaml text, its validated manifest comes along and the YAML is not parsed
 * (nor the YAML library loaded); otherwise tool.yaml is parsed here, once.
 */
export async function readPluginSource(
  folder: PluginFolder,
  cache?: PluginManifestCache,
): Promise<PluginSource> {
  let realDir: string | undefined;
  try {
    realDir = realpathSync(folder.dir);
  } catch {
    // A folder gone or unreadable: every file then reads as missing or unreadable.
    realDir = undefined;
  }
  const yaml = readPluginFile(path.join(folder.dir, "tool.yaml"), false, realDir, PLUGIN_LIMITS.yamlBytes);
  const toolMd = readPluginFile(path.join(folder.dir, "TOOL.md"), false, realDir, PLUGIN_LIMITS.toolMdBytes);
  const manifest = yaml.text === undefined ? undefined : cache?.manifest(yaml.text);
  let yamlDoc: Document.Parsed | undefined;
  if (yaml.text !== undefined && manifest === undefined) {
    const { parseYamlDocument } = await import("./plugin-manifest.ts");
    try {
      yamlDoc = parseYamlDocument(yaml.text);
    } catch {
      // The parser reports syntax errors in the document itself; a throw means it gave up.
      yamlDoc = undefined;
      yaml.problem = "unparsable";
    }
  }
  // A cached manifest's entry is what entryNameOf reads from the same (valid) tool.yaml.
  const entryName = manifest ? manifest.entry : entryNameOf(yamlDoc);
  const entry = readPluginFile(
    path.join(folder.dir, ...entryName.split("/")),
    entryName.includes("/"),
    realDir,
    PLUGIN_LIMITS.entryBytes,
  );
  return { folder, yaml, yamlDoc, ...(manifest ? { manifest } : {}), toolMd, entryName, entry };
}
