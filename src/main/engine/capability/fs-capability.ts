import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { CapabilityDeniedError } from "../errors/capability-denied-error.ts";
import { HiddenPathError } from "../errors/hidden-path-error.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { HiddenPath, HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import { canonicalize, isWithin } from "./canonical-path.ts";
import type { PathScope } from "./path-scope.ts";
import type { Replacement } from "./file-replacement.ts";
import {
  readVerifiedFileAndStats,
  writeVerifiedFile,
  writeVerifiedFileInPlace,
  type ReadIdentity,
} from "./verified-file.ts";
import { explainWriteFailure } from "./write-failure.ts";
import { MAX_NAME_BYTES, MAX_PATH_BYTES } from "./path-limits.ts";
import { UnlistableFolder, walkWorkspace, type WalkOptions } from "./workspace-walker.ts";

type Access = "read" | "write";

const checked = Symbol("lathe.checked-path");

/** A path the capability surface has canonicalised and checked; only it can make one. */
export interface ResolvedPath {
  readonly [checked]: Access;
  /** Canonical absolute path: what the operating system is actually handed. */
  readonly absolute: string;
  /** What to show the model and the user: POSIX relative to the root, or absolute outside it. */
  readonly display: string;
}

/** Kernel pseudo-filesystems: never a file a tool should read or write, whatever a scope says. */
const PSEUDO_ROOTS = ["/proc", "/dev", "/sys"];

interface FsCapabilityOptions {
  root: string;
  read: PathScope;
  write: PathScope;
  /** What no tool may read or write whatever its scope (`sandbox.denyRead`, `$LATHE_HOME`'s private data). */
  hidden: HiddenPathSet;
}

/** A path (or a message quoting one) cut to a length an error can repeat back to the model. */
function shortened(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text;
}

/** Why no file system would take this path (too long, or a name in it too long), if so. */
function overLimit(canonical: string): string | undefined {
  const bytes = Buffer.byteLength(canonical);
  if (bytes > MAX_PATH_BYTES)
    return `The path is ${bytes} bytes long once resolved, more than the ${MAX_PATH_BYTES} a path may have. Use a shorter path.`;
  const name = canonical.split("/").find((part) => Buffer.byteLength(part) > MAX_NAME_BYTES);
  if (name !== undefined)
    return `The name "${name.slice(0, 40)}…" in the path is ${Buffer.byteLength(name)} bytes long, more than the ${MAX_NAME_BYTES} a file name may have. Use a shorter name.`;
  return undefined;
}

/**
 * The filesystem half of the capability surface handed to `execute`. Every path a tool names is
 * resolved against the root, canonicalised (symlinks, dangling ones and missing parents
 * included) and checked against the tool's declared patterns, and against what Lathe hides from
 * every tool and command, before any byte moves.
 */
export class FsCapability {
  readonly root: string;
  /** What no tool may read or write, in any approval mode (see HiddenPathSet). */
  readonly hidden: HiddenPathSet;
  private readonly scopes: Record<Access, PathScope>;

  constructor(options: FsCapabilityOptions) {
    this.root = options.root;
    this.hidden = options.hidden;
    this.scopes = { read: options.read, write: options.write };
  }

  /**
   * Refuse a path a tool was given that names no file as written: empty, with a NUL byte, or
   * starting with `~` (which is not expanded). `resolve` does this first; a tool that uses a
   * path its plan had resolved checks its argument here.
   */
  checkInput(input: string): void {
    if (typeof input !== "string" || input.length === 0) {
      throw new ToolCallError("The path is empty. Give a path relative to the workspace root.");
    }
    if (input.includes("\0")) {
      throw new ToolCallError(
        "The path contains a NUL byte. Give a plain path relative to the workspace root.",
      );
    }
    if (input === "~" || input.startsWith("~/")) {
      throw new ToolCallError(
        `"~" is not expanded in "${input}". Give a path relative to the workspace root (${this.root}).`,
      );
    }
  }

  /** Resolve and check a path a tool was given; throws CapabilityDeniedError when refused. */
  async resolve(input: string, access: Access): Promise<ResolvedPath> {
    this.checkInput(input);
    // Joined without normalising: `link/../x` means what the kernel makes of it (the parent of
    // the link's target), which canonicalize follows; path.resolve would drop `link/..` first.
    const joined = path.isAbsolute(input) ? input : `${this.root}/${input}`;
    // Too long as written is too long resolved: said in these words, not as the kernel's ENAMETOOLONG.
    const tooLongAsWritten = overLimit(joined);
    if (tooLongAsWritten !== undefined) throw new ToolCallError(tooLongAsWritten);
    let canonical: string;
    try {
      canonical = await canonicalize(joined);
    } catch (err) {
      throw new ToolCallError(`Cannot resolve "${shortened(input)}": ${shortened((err as Error).message)}`);
    }
    const tooLong = overLimit(canonical);
    if (tooLong !== undefined) throw new ToolCallError(tooLong);
    return this.check(input, canonical, access);
  }

  /** Check an already canonical absolute path (from a walk below a resolved directory). */
  checkCanonical(canonical: string, access: Access): ResolvedPath {
    return this.check(canonical, canonical, access);
  }

  private check(input: string, canonical: string, access: Access): ResolvedPath {
    const scope = this.scopes[access];
    const pseudo = PSEUDO_ROOTS.some((p) => isWithin(p, canonical));
    if (pseudo || !scope.allows(canonical)) {
      // A tool that declared patterns narrower than whole folders (a plugin's `src/**/*.ts`) is
      // told those, not the folders they start in: a path inside the workspace may be refused.
      const where = scope.isEmpty
        ? `This tool declared no paths it may ${access}.`
        : scope.wholeFolders
          ? `This tool may ${access} only under ${scope.bases().join(", ")}.`
          : `This tool may ${access} only paths matching ${scope.globs().join(", ")}.`;
      const what =
        scope.isEmpty || scope.wholeFolders
          ? `Use a path inside the workspace ${this.root}.`
          : "Use a path that one of those patterns matches.";
      const shown = canonical === input ? `"${input}"` : `"${input}" (which resolves to "${canonical}")`;
      throw new CapabilityDeniedError(
        input,
        `Access denied: ${shown} is outside what this tool may ${access}. ${where} ${what}`,
      );
    }
    const hidden = this.hidden.find(canonical);
    if (hidden) {
      // As the model wrote it, relative to the root (a plan's paths reach here joined to it).
      const named = input.startsWith(`${this.root}/`) ? input.slice(this.root.length + 1) : input;
      throw new HiddenPathError(named, hidden, this.hidden.settingsFile, this.display(canonical));
    }
    return { [checked]: access, absolute: canonical, display: this.display(canonical) };
  }

  /** Whether this tool's scope covers an already canonical absolute path (a non-throwing check; hidden paths aside). */
  allows(canonical: string, access: Access): boolean {
    return !PSEUDO_ROOTS.some((p) => isWithin(p, canonical)) && this.scopes[access].allows(canonical);
  }

  /**
   * Walk the files below a folder resolved for read, never leaving the root (see
   * workspace-walker.ts): ignore files honoured, `.git` skipped, symlinked folders never
   * followed, symlinked files reported only when their canonical target may be read. What Lathe
   * hides (see HiddenPathSet) is left out; the paths left out are returned, one per hidden
   * folder or file the walk came upon.
   */
  walk(dir: ResolvedPath, options: WalkOptions): Promise<HiddenPath[]> {
    if (dir[checked] !== "read") throw new TypeError("walk needs a path resolved for read");
    if (!isWithin(this.root, dir.absolute)) {
      throw new ToolCallError(
        `${dir.absolute} is outside the workspace ${this.root}. Give a folder inside the workspace.`,
      );
    }
    const scope = {
      root: this.root,
      mayRead: (c: string) => this.allows(c, "read"),
      mayReadAllBelow: (c: string) =>
        !PSEUDO_ROOTS.some((p) => isWithin(p, c) || isWithin(c, p)) && this.scopes.read.allowsAllBelow(c),
      hidden: this.hidden,
    };
    return walkWorkspace(dir.absolute, scope, options).catch((err: unknown) => {
      throw err instanceof UnlistableFolder ? new ToolCallError(err.message) : err;
    });
  }

  /** POSIX path relative to the root for paths inside it, the absolute path otherwise. */
  display(canonical: string): string {
    if (canonical === this.root) return ".";
    if (isWithin(this.root, canonical))
      return canonical
        .slice(this.root.length + 1)
        .split(path.sep)
        .join("/");
    return canonical;
  }

  async stat(target: ResolvedPath): Promise<Stats | undefined> {
    try {
      return await stat(target.absolute);
    } catch (err) {
      // ENOTDIR: a parent is a file, so the path cannot exist either.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw err;
    }
  }

  /** Read a whole regular file; refuses directories, FIFOs, sockets and devices. */
  async readBytes(target: ResolvedPath): Promise<{ bytes: Buffer; stats: Stats }> {
    const stats = await this.stat(target);
    if (!stats) throw new ToolCallError(`File not found: ${target.display}. Check the path with glob.`);
    if (stats.isDirectory()) {
      throw new ToolCallError(`${target.display} is a directory, not a file. List it with glob instead.`);
    }
    if (!stats.isFile())
      throw new ToolCallError(`${target.display} is not a regular file; it cannot be read.`);
    // Opened first, then checked to be the file that was resolved: a folder on its path swapped
    // for a symlink since cannot turn this read into one of a file elsewhere.
    const read = await readVerifiedFileAndStats(target, Number.MAX_SAFE_INTEGER, () => "");
    this.refuseHiddenLink(target, read.stats);
    return read;
  }

  /**
   * Refuse a file that was opened under a path the tool may read but is a hard link to a hidden
   * file (see HiddenPathSet.linkedHidden): the same file under another name. `stats` are the
   * opened file's (from its handle), so what is judged is what was read; nothing read is returned.
   */
  refuseHiddenLink(target: ResolvedPath, stats: Stats): void {
    const hidden = this.hidden.linkedHidden(stats);
    if (hidden) throw new HiddenPathError(target.display, hidden, this.hidden.settingsFile);
  }

  /**
   * Replace (or create) a file atomically: a temporary file in the verified folder, flushed,
   * then renamed over the target, so a reader never sees half a file. Missing parent folders are
   * created, and every folder is opened and checked before a byte is written, so a symlink
   * swapped in meanwhile cannot redirect the write (see verified-file.ts). With `replace`
   * "in-place" (see replacementFor) an existing file is rewritten through its verified handle
   * instead, so it stays the same file; one that has gone since is created as above. With
   * `unchangedSince` (the stats of the file as the tool read it), a file that changed since is
   * refused rather than overwritten.
   */
  async writeAtomic(
    target: ResolvedPath,
    content: Uint8Array,
    options: { replace?: Replacement; unchangedSince?: ReadIdentity } = {},
  ): Promise<void> {
    if (target[checked] !== "write") throw new TypeError("writeAtomic needs a path resolved for write");
    try {
      if (options.replace === "in-place") {
        try {
          await writeVerifiedFileInPlace(target, content, options.unchangedSince);
          return;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        }
      }
      await writeVerifiedFile(target, content, options.unchangedSince);
    } catch (err) {
      throw explainWriteFailure(err, target.display) ?? err;
    }
  }
}
