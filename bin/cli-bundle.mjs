// Which code `lathe` runs: the CLI bundle in out/cli/ (built by `npm run build`, and by
// `npm install` through `prepare`) or the TypeScript sources. Plain JavaScript, so deciding costs
// no type stripping. Shared by bin/lathe.mjs and the tests. Node's modules are taken with
// getBuiltinModule: an ESM import of node:fs would also load its streams, for nothing.
const { existsSync, readFileSync, statSync } = process.getBuiltinModule("node:fs");
const path = process.getBuiltinModule("node:path");
const { fileURLToPath } = process.getBuiltinModule("node:url");

export const PACKAGE_ROOT = fileURLToPath(new URL("..", import.meta.url));
export const BUNDLE_DIR = path.join(PACKAGE_ROOT, "out", "cli");
export const BUNDLE_ENTRY = path.join(BUNDLE_DIR, "lathe.js");
export const SOURCE_ENTRY = path.join(PACKAGE_ROOT, "src", "main", "cli", "main.ts");

/**
 * Whether the bundle in `dir` can run: "fresh", or why not ("missing", "stale" naming a source
 * changed since the build). Outside a git checkout (an installed Lathe) a built bundle is used as
 * it is: nobody edits those sources. In a checkout, every file the bundle was built from (its
 * build-info.json lists them: sources, package.json, the lockfiles) must be older than the
 * build — about 380 stats, a millisecond and a half — so a developer who edits a source never
 * runs the old code unknowingly. (Their paths are joined by hand: path.join, which normalizes
 * each one, took twice as long as the stats themselves.)
 */
export function bundleState(root = PACKAGE_ROOT, dir = path.join(root, "out", "cli")) {
  let info;
  try {
    info = JSON.parse(readFileSync(path.join(dir, "build-info.json"), "utf8"));
  } catch {
    return { state: "missing" };
  }
  if (info?.format !== 1 || !Array.isArray(info.inputs) || typeof info.builtAt !== "number") {
    return { state: "missing" };
  }
  if (!existsSync(path.join(dir, "lathe.js"))) return { state: "missing" };
  if (!existsSync(path.join(root, ".git"))) return { state: "fresh" };
  // Inputs are relative, with "/" (which every platform's file functions accept).
  const base = root.endsWith(path.sep) ? root : root + path.sep;
  for (const input of info.inputs) {
    const mtime = statSync(base + input, { throwIfNoEntry: false })?.mtimeMs;
    if (mtime === undefined || mtime > info.builtAt) return { state: "stale", changed: input };
  }
  return { state: "fresh" };
}

/**
 * The entry to import and the notice to print (if any). `LATHE_CLI=source` or `=bundle` picks
 * one without a word (the tests use it); unset, the bundle runs when it is fresh, else the
 * sources with a one-line notice on stderr. Any other value is ignored, and the notice says so.
 */
export function chooseEntry(env = process.env) {
  const pick = (env.LATHE_CLI ?? "").trim();
  if (pick === "source") return { entry: SOURCE_ENTRY };
  if (pick === "bundle") return { entry: BUNDLE_ENTRY };
  const ignored =
    pick === "" ? "" : `lathe: LATHE_CLI=${pick} is neither "source" nor "bundle", so it is ignored\n`;
  const bundle = bundleState();
  if (bundle.state === "fresh")
    return { entry: BUNDLE_ENTRY, ...(ignored === "" ? {} : { notice: ignored }) };
  const why =
    bundle.state === "missing"
      ? "the CLI bundle is not built"
      : `the CLI bundle is older than ${bundle.changed}`;
  return {
    entry: SOURCE_ENTRY,
    notice: `${ignored}lathe: ${why}; running from the TypeScript sources, which starts slower (\`npm run build:cli\` builds it)\n`,
  };
}
