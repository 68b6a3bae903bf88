import { mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { machineSandbox } from "../src/main/engine/sandbox/sandbox-availability.ts";
import { startOpenAICompatibleServer, type FixtureServer } from "./fixtures/openai-compatible-server.ts";
import { runLathe } from "./support/lathe-cli.ts";
import { tempWorld, useEndpoint } from "./support/lathe-process.ts";

// A persistent session's commands get a temp folder (their TMPDIR, writable in the OS sandbox).
// When `lathe` ends, the folder goes with it: nothing named after the session stays in the OS
// temp folder after `lathe run` or `lathe call --session`.

const machine = await machineSandbox();
if (!machine.active)
  console.log(`session-temp-cleanup is skipped: no OS sandbox here, so no temp folder (${machine.reason})`);

let world: Awaited<ReturnType<typeof tempWorld>>;
let tmp: string;
let server: FixtureServer | undefined;

beforeEach(async () => {
  world = await tempWorld("lathe-temp-cleanup-");
  // The CLI's own TMPDIR, so what it leaves behind is seen apart from everything else's.
  tmp = path.join(world.base, "tmp");
  await mkdir(tmp);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await world.cleanup();
});

const lathe = (args: string[]): ReturnType<typeof runLathe> =>
  runLathe(args, { home: world.home, cwd: world.root, env: { TMPDIR: tmp } });

/** What `lathe` left in its TMPDIR (V8's compile cache is Node's, not Lathe's). */
async function leftovers(): Promise<string[]> {
  return (await readdir(tmp)).filter((name) => name !== "node-compile-cache");
}

describe.skipIf(!machine.active)("a session's temp folder", () => {
  it("is removed when lathe call --session ends", async () => {
    const run = await lathe([
      "call",
      "bash",
      '{"command":"echo made > made.txt && echo \\"$TMPDIR\\""}',
      "--session",
      "t1",
      "--mode",
      "yolo",
    ]);
    // The command ran in the sandbox, with a temp folder of the session's inside this TMPDIR.
    expect(run.stdout).toContain('"type":"output"');
    expect(run.stdout).toContain(`${tmp}/lathe-t1-`);
    expect(await readFile(path.join(world.root, "made.txt"), "utf8")).toBe("made\n");
    expect(await leftovers()).toEqual([]);
  });

  it("is removed when lathe run ends, after a bash call", async () => {
    server = await startOpenAICompatibleServer({
      models: ["m"],
      replies: [
        { toolCalls: [{ name: "bash", arguments: { command: 'echo made > made.txt && echo "$TMPDIR"' } }] },
        { text: "done" },
      ],
    });
    await useEndpoint(world.home, server.baseURL);
    const run = await lathe(["run", "go", "--model", "openai-compatible:m", "--mode", "yolo"]);
    expect(run.stderr).toContain("✓ bash");
    expect(run.code).toBe(0);
    const toolMessage = server.requests[1]?.messages.find((m) => m.role === "tool");
    expect(String(toolMessage?.content)).toContain(`${tmp}/lathe-s-`);
    expect(await leftovers()).toEqual([]);
  });
});
