import { closeSync, existsSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { isRunnable } from "../spawner/program-lookup.ts";
import { shown } from "./shell/shown-text.ts";

// Scripts that stand where a toolchain's name is looked up, read through for a bare version
// query (`npm --version`, `python --version`) so that it runs unasked when what it runs is known
// (a nodenv shim too: nodenv-shim.ts):
// - npm's own `npm-cli.js`, which answers `--version` before it makes a cache or log folder, after
//   reading its configuration files (`.npmrc`, which names no program it runs for that), and
//   `npx-cli.js`, which runs `npm exec` and so answers `--version` (`-v`) the same way;
// - a pyenv shim, which runs `$PYENV_ROOT/versions/<name>/bin/<program>` for the names a
//   `.python-version` file (in the folder or one above it), `$PYENV_VERSION` or pyenv's global
//   `version` file gives. The folder chooses only among the versions the user installed; a name
//   pyenv would not take as written (a path, `..`, `system`, one not installed, which pyenv
//   echoes in its error, a line of a file linked there included) keeps the query asking, as does
//   a version whose program is not a native one. A prefix of installed versions (`3.12` for
//   `3.12.4`, which pyenv resolves to the newest) runs unasked when every version it matches would.
// What is read here is read again by the script when it runs; a file changed in between is what
// it reads then (see the README, "Without a sandbox").

/**
 * Whether `real` (a resolved path) is npm's own command-line script for `name` (`npm-cli.js`, or
 * `npx-cli.js`, which runs `npm exec` with the same early answer to `--version`), run by `node`
 * from PATH.
 */
export function npmRunsItself(real: string, name: "npm" | "npx" = "npm"): boolean {
  return real.endsWith(`/node_modules/npm/bin/${name}-cli.js`) && firstLine(real) === "#!/usr/bin/env node";
}

/** What a pyenv shim runs for a version query: `recognized` when `file` is one. */
export type ShimOutcome = { recognized: false } | { recognized: true; reason: string | undefined };

const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/** A version name pyenv takes as written: no path, no `..`, nothing a shell or a glob reads. */
export const VERSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/** How many bytes of a script or version file are read: pyenv's shims are a few hundred. */
export const READ_AT_MOST = 4096;

/** The first `bytes` bytes of `file`. */
export function head(file: string, bytes: number): Buffer {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}

function firstLine(file: string): string | undefined {
  try {
    return head(file, 256).toString("utf8").split("\n")[0];
  } catch {
    return undefined;
  }
}

/**
 * The text of a version manager's shim: a small bash script (pyenv and nodenv write them so);
 * undefined for anything else, or a file this process cannot read.
 */
export function bashShimText(file: string): string | undefined {
  try {
    if (statSync(file).size > READ_AT_MOST) return undefined;
    const text = head(file, READ_AT_MOST).toString("utf8");
    return text.startsWith("#!/usr/bin/env bash\n") ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The PYENV_ROOT a file's text sets when it is a pyenv shim there; undefined when it is not one. */
function shimRoot(file: string): string | undefined {
  const text = bashShimText(file);
  if (text === undefined) return undefined;
  const root = /^export PYENV_ROOT="([^"$`\\\n]+)"$/m.exec(text)?.[1];
  if (root === undefined) return undefined;
  const runs = text.includes(`\nexec "${root}/libexec/pyenv" exec "$program" "$@"`);
  return runs && path.dirname(file) === path.join(root, "shims") ? root : undefined;
}

/** The version names pyenv reads from a version file, as pyenv-version-file-read does (first word of each line). */
function namesIn(file: string): string[] | string {
  let text: string;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) return `${shown(file)} is not a file`;
    if (stats.size > READ_AT_MOST)
      return `${shown(file)} is larger than a version file is (pyenv reads its first word of each line)`;
    text = head(file, READ_AT_MOST).toString("utf8");
  } catch {
    return `${shown(file)} cannot be read`;
  }
  return text
    .split(/[\r\n]/)
    .map((line) => line.trim().split(/\s+/)[0] ?? "")
    .filter((word) => word !== "" && !word.startsWith("#"));
}

/** The file pyenv takes the version from in `folder` (pyenv-version-file), nearest first. */
function versionFile(folder: string, root: string): string {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, ".python-version");
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    if (dir === path.dirname(dir)) return path.join(root, "version");
  }
}

/** Pre-releases and builds pyenv's prefix resolution passes over (pyenv-latest): `3.12-dev`, `3.13.0rc1`, `3.13.1t`. */
const NOT_PICKED = /(-dev|-src|-latest|(a|b|rc)[0-9]+|[0-9]t)$/;

/**
 * The installed versions pyenv may run for `name` when no version of that name is installed:
 * as pyenv-version-name does, `python-3.12` is `3.12`, and a name is a prefix of installed
 * versions followed by `.` or `-` (`3.12` for `3.12.4`), of which pyenv-latest runs the newest
 * release. Every installed name the prefix matches is returned (what pyenv picks among them
 * depends on its version and its sort), or undefined when pyenv would resolve none: no release
 * matches, or the name asks for a free-threaded build (`3.13t`), which is left to ask.
 */
function shorthandVersions(root: string, name: string): string[] | undefined {
  const normalised = name.replace(/^python-/, "");
  if (normalised !== name && existsSync(path.join(root, "versions", normalised))) return [normalised];
  if (/[0-9]t$/.test(normalised)) return undefined;
  let installed: string[];
  try {
    installed = readdirSync(path.join(root, "versions"));
  } catch {
    return undefined;
  }
  const matches = installed.filter(
    (v) =>
      VERSION_NAME.test(v) &&
      [name, normalised].some((prefix) => v.startsWith(`${prefix}.`) || v.startsWith(`${prefix}-`)),
  );
  return matches.some((v) => !NOT_PICKED.test(v)) ? matches : undefined;
}

/**
 * Why the version `name` (the `nth` the file names) may run something other than an installed
 * program; undefined when it runs one. A name that is not an installed version is not repeated:
 * the file may be a link to one that holds a secret (pyenv itself would print it).
 */
function versionReason(
  root: string,
  name: string,
  nth: number,
  program: string,
  from: string,
): string | undefined {
  if (name === "system")
    return `pyenv's "system" version (${from}) runs the "${program}" found further on PATH, which Lathe does not follow`;
  if (!VERSION_NAME.test(name))
    return `the version ${from} names ${nth === 1 ? "first" : `in place ${nth}`} may be read as a path by pyenv`;
  const folder = path.join(root, "versions", name);
  if (!existsSync(folder)) {
    const place = nth === 1 ? "first" : `in place ${nth}`;
    const shorthand = shorthandVersions(root, name);
    if (shorthand === undefined)
      return `the version ${from} names ${place} is not installed (pyenv would pick another, or print the name)`;
    // Whichever of them pyenv picks, it runs one of these: each is held to the same.
    for (const installed of shorthand) {
      const reason = versionReason(root, installed, nth, program, from);
      if (reason !== undefined)
        return `the version ${from} names ${place} is a prefix pyenv may resolve to ${shown(installed)}: ${reason}`;
    }
    return undefined;
  }
  const bin = path.join(folder, "bin", program);
  if (!isRunnable(bin)) return `version ${shown(name)} (${from}) has no "${program}"`;
  try {
    const real = realpathSync(bin);
    if (!head(real, 4).equals(ELF) || !path.basename(real).includes(program.replace(/\d.*$/, "")))
      return `version ${shown(name)} (${from}) runs ${shown(real)}, which is not a native ${program}`;
  } catch {
    return `version ${shown(name)} (${from}) cannot be read to tell what it runs`;
  }
  return undefined;
}

/**
 * Whether `file` (found on PATH for `program`) is a pyenv shim, and if so why a version query of
 * it, run in each of `folders`, may run a program the folder chooses (undefined: an installed one).
 */
export function pyenvShimRunsPython(file: string, program: string, folders: readonly string[]): ShimOutcome {
  const root = shimRoot(file);
  if (root === undefined) return { recognized: false };
  const because = (reason: string): ShimOutcome => ({
    recognized: true,
    reason: `"${program}" is pyenv's stand-in: ${reason}`,
  });
  if (process.env.PYENV_DIR !== undefined)
    return because("PYENV_DIR is set, which moves where pyenv looks for .python-version");
  for (const folder of folders) {
    const fromEnv = process.env.PYENV_VERSION;
    const file = fromEnv === undefined ? versionFile(folder, root) : undefined;
    const from = file === undefined ? "PYENV_VERSION" : shown(file);
    const names =
      fromEnv !== undefined ? fromEnv.split(":") : existsSync(file as string) ? namesIn(file as string) : [];
    if (typeof names === "string") return because(names);
    if (names.length === 0) return because(`${from} names no version, so pyenv runs the "system" one`);
    // pyenv runs the first version that has the program; every name is held to the same.
    for (const [i, name] of names.entries()) {
      const reason = versionReason(root, name, i + 1, program, from);
      if (reason !== undefined) return because(reason);
    }
  }
  return { recognized: true, reason: undefined };
}
