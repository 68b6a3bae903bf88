import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { bundleState } from "./bin/cli-bundle.mjs";

// The `lathe` the tests run as a child process: the CLI bundle when it is built and up to date
// (`npm test` builds it first, so CI tests what users run), else the TypeScript sources. Chosen
// here and passed on as LATHE_CLI, so no run prints the launcher's fallback notice.
const cli = bundleState().state === "fresh" ? "bundle" : "source";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    environment: "node",
    // No test leaves a CLI daemon behind; the daemon's own tests turn it on where they need it.
    // Each test's fresh LATHE_HOME has no login PATH kept, so every MCP server a test starts asks
    // `$SHELL -lc`: the user's real login files ran each time (3 s each where a pyenv rehash
    // waited on a lock, and writing under ~/.pyenv meanwhile). The suite's login shell reads none;
    // the login shell's own tests give theirs.
    env: {
      LATHE_CLI: cli,
      LATHE_DAEMON: "off",
      SHELL: fileURLToPath(new URL("./test/fixtures/quiet-login-shell.sh", import.meta.url)),
    },
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most test time is spent waiting on the processes a test starts (CLIs, servers, browsers),
    // not computing: two workers on a two-core machine (Vitest's default there is one) roughly
    // halve the suite's wall time, and the timing-sensitive tests keep their margins.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
