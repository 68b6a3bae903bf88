// `npm run bench`: runs every bench/*.bench.ts in its own Node process, one after another, so
// one benchmark's warm caches and garbage do not colour the next. Each prints its own figures
// beside the comparison measured in the same run.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n# ${file}`);
  const result = spawnSync(process.execPath, ["--expose-gc", path.join(here, file)], { stdio: "inherit" });
  if (result.status !== 0) {
    failed++;
    console.log(`${file} exited with ${result.status ?? result.signal}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
