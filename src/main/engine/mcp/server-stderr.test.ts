import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { settlesWithin } from "./server-stderr.ts";

describe("settlesWithin", () => {
  it("answers whether the promise settled in time", async () => {
    expect(await settlesWithin(Promise.resolve(), 1_000)).toBe(true);
    expect(await settlesWithin(new Promise(() => {}), 20)).toBe(false);
  });

  it("does not keep a process alive: a CLI whose work is done exits while a server's stderr is awaited", () => {
    // A wait of ten minutes on stderr that never ends, and nothing else to do: the process ends
    // at once. A timer that held the process would keep it for the whole wait.
    const module = fileURLToPath(new URL("./server-stderr.ts", import.meta.url));
    const script = `import { settlesWithin } from ${JSON.stringify(module)};
void settlesWithin(new Promise(() => {}), 600_000).then((ok) => console.log("settled", ok));
console.log("waiting");`;
    const started = Date.now();
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(child.signal).toBeNull();
    expect(child.stdout).toBe("waiting\n");
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
