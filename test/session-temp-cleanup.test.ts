import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { machineSandbox } from "../src/main/engine/sandbox/sandbox-availability.ts";
import { processExists } from "../src/main/engine/spawner/process-exists.ts";
import { tempSweepLogFile } from "../src/main/engine/temp/startup-temp-sweep.ts";
import { ownerOfTempName } from "../src/main/engine/temp/temp-folder-name.ts";
import { useCliWorld } from "./support/cli-world.ts";
import type { Run } from "./support/lathe-cli.ts";

// A persistent session's commands get a temp folder (their TMPDIR, writable in the OS sandbox).
// When `lathe` ends, the folder goes with it: nothing named after the session stays in the OS
// temp folder after `lathe run` or `lathe call --session`. A `lathe` killed with -9 cannot remove
// it: the next `lathe` to start does (and the process spawner's folder, if it was killed too).

const machine = await machineSandbox();
if (!machine.active)
  console.log(`session-temp-cleanup is skipped: no OS sandbox here, so no temp folder (${machine.reason})`);

let tmp: string;
const world = useCliWorld("lathe-temp-cleanup-", {
  setup: async () => {
    // The CLI's own TMPDIR, so what it leaves behind is seen apart from everything else's.
    tmp = await world.folder("tmp");
  },
});

const lathe = (args: string[]): Promise<Run> => world.lathe(args, { env: { TMPDIR: tmp } });

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
    const server = await world.serve({
      models: ["m"],
      replies: [
        { toolCalls: [{ name: "bash", arguments: { command: 'echo made > made.txt && echo "$TMPDIR"' } }] },
        { text: "done" },
      ],
    });
    const run = await lathe(["run", "go", "--model", "openai-compatible:m", "--mode", "yolo"]);
    expect(run.stderr).toContain("✓ bash");
    expect(run.code).toBe(0);
    const toolMessage = server.requests[1]?.messages.find((m) => m.role === "tool");
    expect(String(toolMessage?.content)).toContain(`${tmp}/lathe-s-`);
    expect(await leftovers()).toEqual([]);
  });
});

/** Poll `test` every 20 ms until it holds (or fail after `ms`). */
async function waitFor(what: string, test: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!machine.active)("a killed run's temp folders", () => {
  it.each([
    ["lathe alone (its spawner removes its own folder)", false],
    ["lathe and its process spawner", true],
  ])("are removed by the next lathe to start: kill -9 of %s", async (_what, killSpawner) => {
    // The command leaves an output in its TMPDIR (a script: a redirection to "$TMPDIR/…" would need a person).
    await writeFile(
      path.join(world.root, "w.cjs"),
      'require("fs").writeFileSync(require("os").tmpdir() + "/out.txt", "out\\n");\n',
    );
    const run = world.start(
      ["call", "bash", '{"command":"node w.cjs && sleep 30"}', "--session", "k1", "--mode", "yolo"],
      { env: { TMPDIR: tmp } },
    );
    let session = "";
    let spawner = "";
    await waitFor("temp folders of the session and the spawner", async () => {
      const names = await leftovers();
      session = names.find((n) => n.startsWith("lathe-k1-")) ?? "";
      spawner = names.find((n) => n.startsWith("lathe-spawner-")) ?? "";
      return session !== "" && spawner !== "" && (await readdir(path.join(tmp, session))).includes("out.txt");
    });
    const spawnerPid = ownerOfTempName(spawner)?.pid;
    expect(spawnerPid).toBeGreaterThan(0);
    if (killSpawner) process.kill(spawnerPid as number, "SIGKILL");
    run.child.kill("SIGKILL");
    await run.exited;
    // The spawner goes once the host has (when not killed) or once init reaps it (when killed).
    await waitFor("the spawner's end", () => !processExists(spawnerPid as number));
    // What the killed run left: its session's folder with the command's output (and the spawner's).
    // (A killed spawner also leaves the sandbox library's empty mount source, claude-empty-*: not Lathe's.)
    const left = (await leftovers()).filter((name) => name.startsWith("lathe-"));
    expect(left).toEqual(killSpawner ? [session, spawner].sort() : [session]);
    expect(await readFile(path.join(tmp, session, "out.txt"), "utf8")).toBe("out\n");

    const next = await lathe(["tools"]);
    expect(next.code).toBe(0);
    expect((await leftovers()).filter((name) => name.startsWith("lathe-"))).toEqual([]);
    const log = await readFile(tempSweepLogFile(world.home), "utf8");
    for (const name of left) expect(log).toContain(`removed ${path.join(tmp, name)}`);
  });
});
