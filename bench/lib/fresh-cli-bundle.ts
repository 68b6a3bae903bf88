import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundleState } from "../../bin/cli-bundle.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Build the CLI bundle first when it is missing or older than a source, so `lathe` runs it. */
export function ensureFreshCliBundle(): void {
  const state = bundleState();
  if (state.state === "fresh") return;
  console.log(
    `building the CLI bundle first (${state.state === "stale" ? `older than ${state.changed}` : "not built"})…`,
  );
  const built = spawnSync(process.execPath, [path.join(ROOT, "scripts", "build-cli.ts")], {
    stdio: "inherit",
  });
  if (built.status !== 0) throw new Error("the CLI bundle did not build: see above");
}
