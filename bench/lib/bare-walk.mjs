// The floor under glob: the least a Node process does for glob's answer. It walks a folder with
// readdirSync, keeps the files whose name passes a test, stats each kept file for its
// modification time and sorts them newest first. There is no .gitignore, no policy and no engine,
// and it walks everything find walks.
//
// search.bench.ts runs it in process. startup.bench.ts runs it as a whole process:
// `node bench/lib/bare-walk.mjs DIR SUFFIX` prints the paths under DIR that end in SUFFIX, newest
// first. Plain JavaScript, so the process costs no type stripping.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The files below `root` whose name `keep` accepts, as paths relative to `root`: newest first
 * when `stat`, else in walk order. ".git" is skipped and symlinks are not followed.
 * @param {string} root
 * @param {(name: string) => boolean} keep
 * @param {boolean} [stat]
 * @returns {string[]}
 */
export function bareWalk(root, keep, stat = true) {
  const found = [];
  const stack = [""];
  while (stack.length > 0) {
    const relative = stack.pop();
    let entries;
    try {
      entries = readdirSync(relative === "" ? root : `${root}/${relative}`, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name === ".git") continue;
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) stack.push(child);
      else if (entry.isFile() && keep(entry.name)) found.push(child);
    }
  }
  if (!stat) return found;
  const dated = found.map((file) => ({ file, mtime: statSync(`${root}/${file}`).mtimeMs }));
  dated.sort((a, b) => b.mtime - a.mtime);
  return dated.map((d) => d.file);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [root = ".", suffix = ""] = process.argv.slice(2);
  const files = bareWalk(root, (name) => name.endsWith(suffix));
  process.stdout.write(files.length === 0 ? "" : `${files.join("\n")}\n`);
}
