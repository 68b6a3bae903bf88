// The PATH stdio MCP servers start with (src/main/engine/mcp/login-shell-path.ts): what a lathe
// process pays for it once another has asked the login shell (the answer kept in
// $LATHE_HOME/cache/), against asking `bash -l` itself, as every process did before. The shells
// are bash with a temporary HOME: a quick .bash_profile, and one that takes 300 ms (a profile that
// runs nvm, pyenv or conda init easily does). Median of interleaved rounds.
// Run alone with `node bench/login-path.bench.ts`.
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { askLoginShell, resolveLoginShellPath } from "../src/main/engine/mcp/login-shell-path.ts";
import { compare, heading, median, skipped } from "./lib/report.ts";

const ROUNDS = 15;
const BASH = "/bin/bash";

async function main(): Promise<void> {
  heading(`MCP servers' PATH: kept answer vs the login shell (median of ${ROUNDS} interleaved rounds)`);
  if (process.platform === "win32" || !existsSync(BASH)) {
    skipped("login-shell PATH", "needs /bin/bash");
    return;
  }
  const base = await mkdtemp(path.join(os.tmpdir(), "lathe-login-bench-"));
  try {
    for (const [label, profile] of [
      ["quick .bash_profile", 'export PATH="$HOME/bin:$PATH"\n'],
      [".bash_profile taking 300 ms", 'sleep 0.3\nexport PATH="$HOME/bin:$PATH"\n'],
    ] as const) {
      const home = await mkdtemp(path.join(base, "home-"));
      await writeFile(path.join(home, ".bash_profile"), profile);
      const env = { HOME: home, SHELL: BASH, PATH: "/usr/bin:/bin" };
      await resolveLoginShellPath(home, env); // keeps the answer
      const kept: number[] = [];
      const asked: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        let t0 = performance.now();
        const hit = await resolveLoginShellPath(home, env);
        kept.push(performance.now() - t0);
        if (hit.from !== "cache") throw new Error(`expected the kept answer, got ${hit.from}`);
        t0 = performance.now();
        const answer = await askLoginShell(BASH, env);
        asked.push(performance.now() - t0);
        if (!answer.ok) throw new Error(`bash -l failed: ${answer.reason}`);
      }
      compare({
        what: `PATH for MCP servers, ${label}`,
        ours: { label: "kept answer", value: median(kept) },
        theirs: { label: "bash -l each process", value: median(asked) },
        goal: "≤ 2 ms",
        met: median(kept) <= 2,
      });
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
  process.exit(0);
}

await main();
