import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/engine.ts";
import type { Envelope } from "../src/main/engine/tools/envelope.ts";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf } from "./support/lathe-cli.ts";

// Several calls change one file at the same moment, each in its own session: two chats of the
// app, or `lathe call`s a script runs side by side (`xargs -P`), or the app and a terminal, each
// its own process. Every edit that answers "output" must be in the file afterwards; one that lost
// the race must say the file changed, never report a change another call then overwrote unseen.

const WRITERS = 6;
const lines = Array.from({ length: WRITERS }, (_, i) => `line ${i}`);

const world = useCliWorld("lathe-parallel-edits-", {
  setup: async () => {
    await writeFile(path.join(world.root, "shared.txt"), `${lines.join("\n")}\n`);
  },
});

/** Writer i's change: its own line in capitals, by edit or by writing the whole file. */
const CHANGES = [
  ["edit", (i: number) => ({ path: "shared.txt", old_string: `line ${i}\n`, new_string: `LINE ${i}\n` })],
  [
    "write",
    (i: number) => ({
      path: "shared.txt",
      content: `${lines.map((l, j) => (j === i ? l.toUpperCase() : l)).join("\n")}\n`,
    }),
  ],
] as const;

/** Sessions w0…wN, each having read shared.txt as it is now (and kept that, for the CLI to go on with). */
async function readInEverySession(): Promise<Engine> {
  const engine = await Engine.create({ root: world.root, latheHome: world.home, extensions: false });
  for (const [i] of lines.entries()) {
    const session = await engine.openSession({ id: `w${i}`, mode: "yolo" });
    expect((await session.call("read", { path: "shared.txt" })).type).toBe("output");
  }
  return engine;
}

/** Every change answered "output" is in the file, and exactly one was: the others were told it changed. */
async function expectNoLostChange(tool: string, envelopes: Envelope[]): Promise<void> {
  const final = await readFile(path.join(world.root, "shared.txt"), "utf8");
  const done: number[] = [];
  envelopes.forEach((envelope, i) => {
    if (envelope.type === "output") done.push(i);
    else expect(envelope.error_text).toMatch(/changed on disk since this session last read it/);
  });
  for (const i of done) expect(final, `the ${tool} of writer ${i} answered output`).toContain(`LINE ${i}\n`);
  expect(done).toHaveLength(1);
}

describe("parallel changes of one file from several sessions", () => {
  it.each(CHANGES)("%s: in one process (two chats of the app)", async (tool, argsOf) => {
    const engine = await readInEverySession();
    try {
      const sessions = await Promise.all(
        lines.map((_, i) => engine.openSession({ id: `w${i}`, mode: "yolo" })),
      );
      const envelopes = await Promise.all(sessions.map((s, i) => s.call(tool, argsOf(i))));
      await expectNoLostChange(tool, envelopes);
    } finally {
      await engine.close();
    }
  });

  it.each(CHANGES)(
    "%s: in separate lathe call processes",
    async (tool, argsOf) => {
      await (await readInEverySession()).close();
      const runs = await Promise.all(
        lines.map((_, i) =>
          world.lathe(["call", tool, JSON.stringify(argsOf(i)), "--session", `w${i}`, "--mode", "yolo"], {
            env: { LATHE_DAEMON: "off" },
          }),
        ),
      );
      await expectNoLostChange(
        tool,
        runs.map((run) => envelopeOf(run) as Envelope),
      );
    },
    60_000,
  );
});
