import { ToolCallError } from "../errors/tool-call-error.ts";
import { refuseReadOnly, replacementFor, type Replacement } from "../capability/file-replacement.ts";
import { listVerifiedDir, readVerifiedFileAndStats } from "../capability/verified-file.ts";
import type { ResolvedAccess } from "../tools/call-plan.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import { transferList } from "../offload/job-result.ts";
import { offload } from "../offload/offload.ts";
import { AsciiJson } from "./encoded-json.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";

type FsAccess = Extract<ResolvedAccess, { capability: "fs.read" | "fs.write" }>;

async function authorized(
  runtime: ToolRuntime,
  capability: FsAccess["capability"],
  input: string,
): Promise<FsAccess> {
  const access = await runtime.authorize({ capability, path: input });
  if (access.capability !== capability)
    throw new Error(`authorize returned ${access.capability} for ${capability}`);
  return access as FsAccess;
}

/**
 * `runtime.fs.readText` on the host: the path is authorized by name, then the file is opened and
 * what was opened is verified to be the authorized file before a byte is read (see
 * capability/verified-file.ts), so a folder swapped for a symlink in between reads nothing. The
 * bytes are decoded and JSON-encoded on an offload worker: the main thread only hands them on.
 */
export async function pluginReadText(runtime: ToolRuntime, input: string): Promise<AsciiJson> {
  const access = await authorized(runtime, "fs.read", input);
  const { bytes, stats } = await readVerifiedFileAndStats(
    access.path,
    PLUGIN_LIMITS.readBytes,
    (size) =>
      `${access.path.display} is ${size} bytes, more than runtime.fs.readText reads (${PLUGIN_LIMITS.readBytes}).`,
  );
  // A hard link to a hidden file is that file: refused like its hidden name.
  runtime.fs.refuseHiddenLink(access.path, stats);
  return new AsciiJson(
    await offload("plugin.textJson", { bytes }, { signal: runtime.signal, transfer: transferList(bytes) }),
  );
}

/**
 * `runtime.fs.list` on the host: the folder's entries, read through a verified handle, but those
 * Lathe hides from its tools and those a permission rule denies reading.
 */
export async function pluginList(
  runtime: ToolRuntime,
  input: string,
): Promise<{ name: string; type: string }[]> {
  const access = await authorized(runtime, "fs.read", input);
  let entries;
  try {
    entries = await listVerifiedDir(access.path);
  } catch (err) {
    if (ToolCallError.isInstance(err) && err.message.startsWith(`${access.path.display} is a file`)) {
      throw new ToolCallError(
        `${access.path.display} is a file, not a folder; read it with runtime.fs.readText.`,
      );
    }
    throw err;
  }
  // An entry Lathe hides from every tool (`sandbox.denyRead`, its own data), or a permission rule
  // denies the tool (or the read tool) reading, is left out, as glob leaves it out: its name is
  // for no tool to tell. Judged by name only, with no file access.
  const { absolute, display } = access.path;
  const prefix = display === "." ? "" : `${display}/`;
  const parent = absolute === "/" ? "" : absolute;
  const denied = (name: string): boolean =>
    runtime.fs.hidden.find(`${parent}/${name}`) !== undefined ||
    runtime.readDenied?.({ absolute: `${parent}/${name}`, display: `${prefix}${name}` }) !== undefined;
  return entries
    .filter((e) => !denied(e.name))
    .map((e) => ({
      name: e.name,
      type: e.isFile() ? "file" : e.isDirectory() ? "dir" : e.isSymbolicLink() ? "symlink" : "other",
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, PLUGIN_LIMITS.listEntries);
}

/**
 * `runtime.fs.writeText` on the host, once its payload is parsed and encoded: authorized by name,
 * then written through a verified folder handle — a temporary file in that folder, renamed over
 * the target within it — as the write tool writes: an existing file stays the same file (its
 * owner and group kept; one with other names, hard links, rewritten in place), a read-only one
 * is refused, and one that is another name of a hidden file is refused before a byte moves.
 */
export async function pluginWriteBytes(
  runtime: ToolRuntime,
  input: string,
  bytes: Uint8Array,
): Promise<{ path: string; bytes: number }> {
  const access = await authorized(runtime, "fs.write", input);
  const existing = await runtime.fs.stat(access.path);
  let replace: Replacement = "rename";
  if (existing?.isFile()) {
    runtime.fs.refuseHiddenLink(access.path, existing);
    await refuseReadOnly(access.path, existing);
    replace = await replacementFor(access.path.absolute, existing);
  }
  await runtime.fs.writeAtomic(access.path, bytes, { replace });
  return { path: access.path.display, bytes: bytes.byteLength };
}
