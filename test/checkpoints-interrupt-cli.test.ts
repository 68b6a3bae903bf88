import { watch } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf, type Run } from "./support/lathe-cli.ts";

// Ctrl-C in the middle of `lathe restore` and `lathe rewind` that put back thousands of files:
// the command stops between two files, says what it did and did not do and how to go on, leaves
// no half-written or temporary file behind, and the same command run again finishes the job.
// And Ctrl-C on a `lathe call bash` that already changed files: what it changed is checkpointed.

const FILES = 3000;
const world = useCliWorld("lathe-cp-interrupt-", {
  setup: async () => {
    await mkdir(path.join(world.root, "d"));
    for (let i = 1; i <= FILES; i++) await writeFile(path.join(world.root, "d", `f${i}.txt`), `orig ${i}\n`);
  },
});

const lathe = (args: string[]): Promise<Run> => world.lathe(args);

/** What the workspace's d/ holds: original files, and anything else (a temporary file, a half-written one). */
async function inD(): Promise<{ originals: number; others: string[] }> {
  let names: string[];
  try {
    names = await readdir(path.join(world.root, "d"));
  } catch {
    return { originals: 0, others: [] };
  }
  const others: string[] = [];
  let originals = 0;
  for (const name of names) {
    const text = await readFile(path.join(world.root, "d", name), "utf8");
    if (`orig ${/^f(\d+)\.txt$/.exec(name)?.[1]}\n` === text) originals += 1;
    else others.push(name);
  }
  return { originals, others };
}

/** Start `args`, Ctrl-C it once some (not all) of d/ is back, and wait for it to end. */
async function interruptHalfway(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const running = world.start(args);
  let seen = 0;
  await running.until(
    "some files put back",
    () => {
      void readdir(path.join(world.root, "d")).then(
        (names) => (seen = names.length),
        () => undefined,
      );
      return seen >= 50;
    },
    60_000,
  );
  running.child.kill("SIGINT");
  const { code } = await running.exited;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

describe("Ctrl-C during a restore or a rewind of many files", () => {
  it("a restore stops between files, says what is left and how to go on; running it again finishes it", async () => {
    const removed = await lathe([
      "call",
      "bash",
      '{"command":"rm -r d"}',
      "--session",
      "s1",
      "--mode",
      "yolo",
    ]);
    expect(envelopeOf(removed).type, removed.stdout).toBe("output");
    expect((await inD()).originals).toBe(0);

    const stopped = await interruptHalfway(["restore", "1", "--session", "s1"]);
    expect(stopped.code, stopped.stderr).toBe(1);
    const after = await inD();
    expect(after.others).toEqual([]);
    expect(after.originals).toBeGreaterThan(0);
    expect(after.originals).toBeLessThan(FILES);
    expect(stopped.stdout).toMatch(
      new RegExp(`NOT REACHED ${FILES - after.originals} paths, left as they were: d/f\\d+\\.txt, `),
    );
    expect(stopped.stderr).toContain(
      `error: the restore was stopped (interrupted (SIGINT)) before ${FILES - after.originals} paths, left as they were (listed above); no file was left half written. Run the same command again to finish it, or undo what it did with: lathe restore 2 --session s1.`,
    );

    const again = await lathe(["restore", "1", "--session", "s1"]);
    expect(again.code, again.stderr).toBe(0);
    expect(await inD()).toEqual({ originals: FILES, others: [] });
  }, 120_000);

  it("a rewind stops between files, keeps the conversation whole and does not claim it was rewound", async () => {
    await world.serve({
      models: ["m"],
      replies: (request) => {
        const prompt = JSON.stringify(request.messages.filter((m) => m.role === "user").at(-1)?.content);
        if (request.messages.at(-1)?.role === "tool") return { text: "Done." };
        if (prompt.includes("clean up"))
          return { toolCalls: [{ name: "bash", arguments: { command: "rm -r d" } }] };
        return { text: "Hello." };
      },
    });
    const model = ["--model", "openai-compatible:m", "--mode", "yolo"];
    const first = await lathe(["run", "say hello", ...model, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const session = (
      JSON.parse(first.stdout.split("\n")[0] as string) as Extract<RunEvent, { type: "start" }>
    ).sessionId;
    const second = await lathe(["run", "clean up", ...model, "--resume", session]);
    expect(second.code, second.stderr).toBe(0);
    expect((await inD()).originals).toBe(0);
    const before = /^prompt (\d+): "clean up"$/m.exec(
      (await lathe(["checkpoints", "--session", session])).stdout,
    )?.[1];
    expect(before).toBeDefined();

    const stopped = await interruptHalfway(["rewind", "--session", session, "--before", before as string]);
    expect(stopped.code, stopped.stderr).toBe(1);
    expect(stopped.stdout).not.toContain("Rewound session");
    expect(stopped.stdout).toContain(
      `Session ${session} was not rewound to before prompt ${before}: its conversation is kept whole, and only these files were put back:`,
    );
    expect(stopped.stderr).toContain("error: the rewind was stopped (interrupted (SIGINT))");
    expect(stopped.stderr).toContain("the conversation was not cut. Run the same command again to finish it");
    expect((await inD()).others).toEqual([]);
    const dry = await lathe(["rewind", "--session", session, "--before", before as string, "--dry-run"]);
    expect(dry.stdout).toMatch(/would remove [1-9]\d* messages/);

    const again = await lathe(["rewind", "--session", session, "--before", before as string]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`Rewound session ${session} to before prompt ${before}`);
    expect(await inD()).toEqual({ originals: FILES, others: [] });
  }, 120_000);
});

describe("a second Ctrl-C while a restore writes a file", () => {
  const BIG = 12;
  const bigName = (i: number): string => `big${i}.bin`;
  const bigContent = (i: number): Buffer => Buffer.alloc(7_000_000, i);

  it("ends it at once and leaves no temporary file in the workspace; the file being written is not half there", async () => {
    for (let i = 1; i <= BIG; i++) await writeFile(path.join(world.root, bigName(i)), bigContent(i));
    const removed = await lathe([
      "call",
      "bash",
      '{"command":"rm big*.bin"}',
      "--session",
      "s1",
      "--mode",
      "yolo",
    ]);
    expect(envelopeOf(removed).type, removed.stdout).toBe("output");

    const running = world.start(["restore", "1", "--session", "s1"]);
    // The two Ctrl-Cs go the moment a restore's temporary file is made, while it is written (each
    // file is 7 MB, synced to disk before it is renamed into place).
    let seenTemp = "";
    const watcher = watch(world.root, (_event, name) => {
      if (seenTemp !== "" || typeof name !== "string" || !name.includes(".lathe-restore-")) return;
      seenTemp = name;
      running.child.kill("SIGINT");
      // Apart, or the two would arrive as one signal.
      setTimeout(() => running.child.kill("SIGINT"), 5);
    });
    try {
      await running.until("a temporary file", () => seenTemp !== "", 60_000);
      const { signal } = await running.exited;
      expect(signal, running.stderr()).toBe("SIGINT");
    } finally {
      watcher.close();
    }
    const left = await readdir(world.root);
    expect(left.filter((n) => n.endsWith(".tmp"))).toEqual([]);
    // Each big file is either back whole or not there yet.
    for (let i = 1; i <= BIG; i++) {
      if (!left.includes(bigName(i))) continue;
      expect((await readFile(path.join(world.root, bigName(i)))).equals(bigContent(i)), bigName(i)).toBe(
        true,
      );
    }
  }, 120_000);
});

describe("Ctrl-C or SIGTERM on a lathe call bash that has changed a file", () => {
  it.each([
    ["SIGINT", "interrupted (SIGINT)", "off"],
    ["SIGTERM", "terminated (SIGTERM)", "off"],
    ["SIGINT", "interrupted (SIGINT)", "on"],
  ] as const)(
    "%s ends the call with an error envelope (%s; daemon %s), and the change it made is a checkpoint that restores",
    async (signal, said, daemon) => {
      const notes = path.join(world.root, "notes.txt");
      await writeFile(notes, "the person's notes\n");
      const env = { LATHE_DAEMON: daemon, CI: "" };
      if (daemon === "on") await world.lathe(["daemon", "start"], { env });
      const running = world.start(
        [
          "call",
          "bash",
          JSON.stringify({ command: "echo overwritten > notes.txt && sleep 30" }),
          "--session",
          "s1",
          "--mode",
          "yolo",
        ],
        { env },
      );
      let text = "";
      await running.until(
        "the file to change",
        () => {
          void readFile(notes, "utf8").then((t) => (text = t));
          return text === "overwritten\n";
        },
        30_000,
      );
      running.child.kill(signal);
      const { code } = await running.exited;
      if (daemon === "on") await world.lathe(["daemon", "stop"], { env });
      expect(code, running.stderr()).toBe(1);
      expect(JSON.parse(running.stdout())).toMatchObject({
        type: "error",
        error_text: `bash was aborted: ${said}.`,
      });

      const list = await lathe(["checkpoints", "--session", "s1", "--json"]);
      expect(JSON.parse(list.stdout)).toMatchObject([
        { id: 1, tool: "bash", paths: [{ path: "notes.txt", change: "modified" }] },
      ]);
      const restored = await lathe(["restore", "1", "--session", "s1"]);
      expect(restored.code, restored.stderr).toBe(0);
      expect(await readFile(notes, "utf8")).toBe("the person's notes\n");
    },
    60_000,
  );
});
