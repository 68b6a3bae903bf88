import { closeSync, openSync, readSync, realpathSync } from "node:fs";
import path from "node:path";
import { isRunnable } from "../spawner/program-lookup.ts";
import type { SimpleCommand } from "../tools/shell-command.ts";
import { npmRunsItself, pyenvShimRunsPython } from "./known-script-runners.ts";
import { nodenvShimRunsNode } from "./nodenv-shim.ts";
import { pathsIn } from "./shell/directory-tracking.ts";
import { programOf } from "./shell/read-only-command.ts";
import { VERSION_ONLY_NAMES } from "./shell/read-only-commands.ts";
import { shown } from "./shell/shown-text.ts";
import { expandTilde } from "./shell/tilde-path.ts";

// `cargo --version` reads nothing, when `cargo` is cargo. Often it is not: rustup's `cargo` is
// rustup itself, and pyenv, asdf, nodenv, mise, volta and corepack put stand-ins named `python`,
// `node` or `yarn` first on PATH, which pick the program to run from files in the folder
// (`rust-toolchain.toml`, `.tool-versions`, `.python-version`, `package.json`'s
// `packageManager`) — and some of those files may name any program (`path = "/…"` in
// `rust-toolchain.toml` runs `/…/bin/cargo`). A folder someone handed over then chooses what
// `cargo --version` runs. So a toolchain's `--version` counts as read-only only when its name
// leads to a native program named for it (`python3` → `python3.11`, `g++` →
// `x86_64-linux-gnu-g++-12`), not to a script or a program of another name.

const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);
const MACH_O = [
  Buffer.from([0xcf, 0xfa, 0xed, 0xfe]),
  Buffer.from([0xce, 0xfa, 0xed, 0xfe]),
  Buffer.from([0xca, 0xfe, 0xba, 0xbe]),
];

function head(file: string, length = 4): Buffer {
  const fd = openSync(file, "r");
  try {
    const bytes = Buffer.alloc(length);
    const read = readSync(fd, bytes, 0, length, 0);
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** Where a version query runs, to follow a known script to what it runs there. */
interface VersionQuery {
  command: SimpleCommand;
  /** The folders it may run in (absolute). */
  folders: readonly string[];
}

/** Whether a command asks only for its version: one word, `--version`, `-v` or `-V`. */
const asksVersionOnly = (command: SimpleCommand): boolean =>
  command.args.length === 1 &&
  command.args[0]?.literal === true &&
  /^(--version|-v|-V)$/.test(command.args[0].text);

/**
 * The version managers whose stand-ins Lathe names but does not read through, and why: what
 * they run is not known from the folder's files alone.
 * - asdf: its shim (`# asdf-plugin: nodejs 22.1.0`, `exec asdf exec "node"`) runs what the
 *   plugin's own scripts (`list-bin-paths`, `exec-env`, `parse-legacy-file`) say, for the version
 *   `.tool-versions` names, which may be `path:<any folder>`;
 * - mise: its shims are links to mise itself, which reads `mise.toml` (whose templates, hooks and
 *   `[env]` scripts run commands) and `.tool-versions`, `.nvmrc` and the like from the folder up.
 */
function namedStandIn(name: string, entry: string, real: string, bytes: Buffer): string | undefined {
  if (/^mise(-|$)/.test(path.basename(real)) && !name.startsWith("mise"))
    return `"${name}" in ${shown(entry)} is mise's stand-in (${shown(real)}): mise picks the version from files in the folder and above it, and mise.toml may run commands of its own (templates, hooks, env scripts), which Lathe does not follow`;
  if (bytes.subarray(0, 2).toString("latin1") !== "#!") return undefined;
  let text: string;
  try {
    text = head(real, 4096).toString("latin1");
  } catch {
    return undefined;
  }
  if (/^# asdf-plugin: /m.test(text) && /\bexec \S*asdf" exec |\bexec \S*asdf exec /.test(text))
    return `"${name}" in ${shown(entry)} is asdf's stand-in: it runs what the asdf plugin's own scripts pick, for the version .tool-versions names (which may be a path:), which Lathe does not follow`;
  return undefined;
}

/**
 * Why `name` as found on `searchPath` may be a version manager's stand-in; undefined when it is
 * the program. `query`: a bare version query, for which a known script is read through.
 */
function standIn(name: string, searchPath: string, query?: VersionQuery): string | undefined {
  for (const entry of searchPath.split(":")) {
    if (!path.isAbsolute(entry)) continue;
    const file = path.join(entry, name);
    if (!isRunnable(file)) continue;
    let real: string;
    let bytes: Buffer;
    try {
      real = realpathSync(file);
      bytes = head(real);
    } catch {
      return `"${name}" in ${shown(entry)} cannot be read to tell what it is`;
    }
    const named = namedStandIn(name, entry, real, bytes);
    if (named !== undefined) return named;
    if (bytes.equals(ELF) || MACH_O.some((magic) => bytes.equals(magic)))
      return path.basename(real).includes(name)
        ? undefined
        : `"${name}" in ${shown(entry)} is ${shown(real)}, another program (a version manager's stand-in picks what to run from files in the folder)`;
    const script = `"${name}" in ${shown(entry)} is a script (a version manager's stand-in picks what to run from files in the folder)`;
    if (query === undefined || !asksVersionOnly(query.command)) return script;
    // npm's own script (npx's too, asked with --version or -v: `npx -V` runs `npm exec`, a
    // shell), run by the node on PATH (itself judged here).
    if (name === "npm" && npmRunsItself(real)) return standIn("node", searchPath);
    if (
      name === "npx" &&
      npmRunsItself(real, "npx") &&
      /^(--version|-v)$/.test(query.command.args[0]?.text ?? "")
    )
      return standIn("node", searchPath);
    for (const shim of [pyenvShimRunsPython, nodenvShimRunsNode]) {
      const outcome = shim(file, name, query.folders);
      if (outcome.recognized) return outcome.reason;
    }
    return path.basename(real).includes(name)
      ? script
      : `"${name}" in ${shown(entry)} is ${shown(real)}, another program (a version manager's stand-in picks what to run from files in the folder)`;
  }
  return undefined;
}

/**
 * Why one of `commands` — a toolchain asked only for its version — may run a program the folder
 * chooses; undefined when each is the toolchain's own program (or not found: bash then fails).
 */
export function versionManagerStandIn(
  commands: readonly SimpleCommand[],
  searchPath: string | undefined = process.env.PATH,
  base?: string,
): string | undefined {
  if (searchPath === undefined) return undefined;
  for (const command of commands) {
    const program = programOf(command);
    if (program === undefined || !VERSION_ONLY_NAMES.has(program)) continue;
    // A known script is read through only where the folders it runs in are known.
    const query =
      base === undefined || command.runsIn?.unknown !== undefined
        ? undefined
        : {
            command,
            folders: pathsIn(command.runsIn, ".").map((dir) => path.resolve(base, expandTilde(dir))),
          };
    const why = command.name.includes("/")
      ? standIn(path.basename(command.name), path.dirname(command.name), query)
      : standIn(program, searchPath, query);
    if (why !== undefined) return why;
  }
  return undefined;
}
