import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { isRunnable } from "../spawner/program-lookup.ts";
import { bashShimText, head, npmRunsItself, type ShimOutcome, VERSION_NAME } from "./known-script-runners.ts";
import { shown } from "./shell/shown-text.ts";

// A nodenv shim (`$NODENV_ROOT/shims/node`, `npm`, `npx`) runs `nodenv exec`, which runs
// `$NODENV_ROOT/versions/<version>/bin/<program>` for the one version nodenv-version-name gives:
// `$NODENV_VERSION`, else the first word of the nearest `.node-version` (in the folder or one
// above it), else of `$NODENV_ROOT/version`; a word that is `..` or holds a `/` is refused and
// empty means "system" (the program further on PATH). A name not installed as written is tried
// without a leading `node-`, then `v`; still not installed, nodenv stops and prints the name.
// Hooks (nodenv.d folders, plugins such as nodenv-package-json-engine) may pick another version
// or program: with one for these steps installed, the query keeps asking. A version query runs
// unasked only when the version is installed and its program is a native node (for npm and npx,
// npm's own script run by that version's native node).

/** The hook steps that may change which version or program a shim runs. */
const CHOOSING_HOOKS = ["version-name", "version-file", "version-file-read", "which", "exec"];

/** The NODENV_ROOT a shim's text sets and the nodenv it runs, when `file` is a nodenv shim. */
function shimOf(file: string): { root: string; nodenv: string } | undefined {
  const text = bashShimText(file);
  if (text === undefined) return undefined;
  const root = /^export NODENV_ROOT="([^"$`\\\n]+)"$/m.exec(text)?.[1];
  // nodenv writes the path of its own libexec/nodenv (in the root, or a package's folder).
  const nodenv = /\nexec "(\/[^"$`\\\n]*\/libexec\/nodenv)" exec "\$program" "\$@"\n/.exec(text)?.[1];
  if (root === undefined || nodenv === undefined) return undefined;
  return path.dirname(file) === path.join(root, "shims") ? { root, nodenv } : undefined;
}

/** A hook nodenv would run for a step that picks the version or the program, if one is installed. */
function choosingHook(root: string, nodenv: string): string | undefined {
  let plugins: string[] = [];
  try {
    plugins = readdirSync(path.join(root, "plugins")).map((p) =>
      path.join(root, "plugins", p, "etc/nodenv.d"),
    );
  } catch {
    // No plugins folder: no plugin hooks.
  }
  const folders = [
    path.join(root, "nodenv.d"),
    path.join(path.dirname(path.dirname(nodenv)), "nodenv.d"),
    "/usr/local/etc/nodenv.d",
    "/etc/nodenv.d",
    "/usr/lib/nodenv/hooks",
    ...plugins,
  ];
  for (const folder of folders)
    for (const step of CHOOSING_HOOKS) {
      const dir = path.join(folder, step);
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      if (names.some((n) => n.endsWith(".bash"))) return dir;
    }
  return undefined;
}

/** The nearest `.node-version` from `folder` up, else nodenv's global `version` file. */
function versionFile(folder: string, root: string): string {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, ".node-version");
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    if (dir === path.dirname(dir)) return path.join(root, "version");
  }
}

/** The first word of a version file, as nodenv-version-file-read takes it ("" for none), or why it cannot be read. */
function firstWord(file: string): { word: string } | { why: string } {
  if (!existsSync(file)) return { word: "" };
  try {
    const stats = statSync(file);
    if (!stats.isFile()) return { why: `${shown(file)} is not a file` };
    return { word: head(file, 1024).toString("utf8").trim().split(/\s+/)[0] ?? "" };
  } catch {
    return { why: `${shown(file)} cannot be read` };
  }
}

/** The installed version nodenv runs for `name` (as written, or without `node-` or `v`), if any. */
function installedAs(root: string, name: string): string | undefined {
  return [name, name.replace(/^node-/, ""), name.replace(/^v/, "")].find(
    (v) => VERSION_NAME.test(v) && existsSync(path.join(root, "versions", v)),
  );
}

/** Why `program` of an installed version is not a native node (or npm's own script for it). */
function programReason(root: string, version: string, program: string): string | undefined {
  const bin = path.join(root, "versions", version, "bin");
  const native = (name: string): string | undefined => {
    const file = path.join(bin, name);
    if (!isRunnable(file)) return `version ${shown(version)} has no "${name}"`;
    try {
      const real = realpathSync(file);
      return head(real, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])) &&
        path.basename(real).includes("node")
        ? undefined
        : `version ${shown(version)} runs ${shown(real)}, which is not a native node`;
    } catch {
      return `version ${shown(version)} cannot be read to tell what it runs`;
    }
  };
  if (program === "node") return native("node");
  const file = path.join(bin, program);
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return `version ${shown(version)} has no "${program}"`;
  }
  // nodenv exec puts the version's bin folder first on PATH: npm's script runs its node.
  if (!npmRunsItself(real, program as "npm" | "npx"))
    return `version ${shown(version)} runs ${shown(real)}, which is not npm's own ${program} script`;
  return native("node");
}

/**
 * Whether `file` (found on PATH for `program`) is a nodenv shim, and if so why a version query
 * of it, run in each of `folders`, may run a program the folder chooses (undefined: an installed one).
 */
export function nodenvShimRunsNode(file: string, program: string, folders: readonly string[]): ShimOutcome {
  const shim = shimOf(file);
  if (shim === undefined) return { recognized: false };
  const because = (reason: string): ShimOutcome => ({
    recognized: true,
    reason: `"${program}" is nodenv's stand-in: ${reason}`,
  });
  if (!["node", "npm", "npx"].includes(program))
    return because(`Lathe does not follow what it runs as "${program}"`);
  if (process.env.NODENV_DIR !== undefined)
    return because("NODENV_DIR is set, which moves where nodenv looks for .node-version");
  if (process.env.NODENV_HOOK_PATH !== undefined)
    return because("NODENV_HOOK_PATH is set, and its hooks may pick another version or program");
  const hook = choosingHook(shim.root, shim.nodenv);
  if (hook !== undefined) return because(`the hooks in ${shown(hook)} may pick another version or program`);
  for (const folder of folders) {
    const fromEnv = process.env.NODENV_VERSION;
    const file = fromEnv === undefined ? versionFile(folder, shim.root) : undefined;
    const from = file === undefined ? "NODENV_VERSION" : shown(file);
    const read = file === undefined ? { word: fromEnv as string } : firstWord(file);
    if ("why" in read) return because(read.why);
    const name = read.word;
    if (name === "" || name === "system" || name === ".." || name.includes("/"))
      return because(
        `${from} names no version nodenv takes, so it runs the "system" one, the "${program}" further on PATH`,
      );
    // A name not installed is not repeated: the file may be a link to one that holds a secret.
    const version = installedAs(shim.root, name);
    if (version === undefined)
      return because(`the version ${from} names is not installed (nodenv would print the name)`);
    const reason = programReason(shim.root, version, program);
    if (reason !== undefined) return because(`${reason} (${from})`);
  }
  return { recognized: true, reason: undefined };
}
