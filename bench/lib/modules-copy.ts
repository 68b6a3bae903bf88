import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BENCH = fileURLToPath(new URL("..", import.meta.url));

/** Where the copy lives (bench/.work, ignored by git). */
export const MODULES_COPY = path.join(BENCH, ".work", "node-modules-copy");

/**
 * A copy of the project's node_modules with every folder, name, symlink and modification time,
 * and the text of every ignore file, but empty files otherwise (glob reads no content): the tree
 * the issue measured `lathe call glob` on, without copying a gigabyte. Made once; later runs reuse
 * it while the file count of the original matches. Used by search.bench.ts and startup.bench.ts.
 */
export function ensureModulesCopy(): { files: number } | { why: string } {
  let source: string;
  try {
    source = realpathSync(path.join(BENCH, "..", "node_modules"));
  } catch {
    return { why: "the project has no node_modules" };
  }
  const count = (dir: string): number => {
    const r = spawnSync("find", [dir, "-type", "f"], { maxBuffer: 1 << 30 });
    return r.stdout.toString().split("\n").filter(Boolean).length;
  };
  const marker = path.join(MODULES_COPY, ".lathe-bench-copy");
  const files = count(source);
  if (existsSync(marker) && JSON.parse(readFileSync(marker, "utf8")).files === files) return { files };
  const started = performance.now();
  rmSync(MODULES_COPY, { recursive: true, force: true });
  mkdirSync(path.dirname(MODULES_COPY), { recursive: true });
  const cp = spawnSync("cp", ["-a", "--attributes-only", source, MODULES_COPY]);
  if (cp.status !== 0) return { why: `cp -a --attributes-only failed: ${cp.stderr.toString().trim()}` };
  const ignoreFiles = spawnSync("find", [".", "-name", ".gitignore", "-type", "f"], {
    cwd: source,
    maxBuffer: 1 << 30,
  });
  for (const relative of ignoreFiles.stdout.toString().split("\n").filter(Boolean)) {
    spawnSync("cp", ["-a", path.join(source, relative), path.join(MODULES_COPY, relative)]);
  }
  writeFileSync(marker, JSON.stringify({ files }));
  console.log(
    `copied node_modules (structure only) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { files };
}
