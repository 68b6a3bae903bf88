import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf } from "./support/lathe-cli.ts";

// A count of one is written in the singular: a one-byte binary file is "1 byte", not "1 bytes".

const world = useCliWorld("lathe-counts-");

describe("a one-byte binary file, as read, write and edit refuse it", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["read", { path: "nul.bin" }, "nul.bin is a binary file (1 byte, it contains NUL bytes);"],
    ["write", { path: "nul.bin", content: "text" }, "nul.bin is an existing binary file (1 byte) that"],
    [
      "edit",
      { path: "nul.bin", old_string: "a", new_string: "b" },
      "nul.bin is a binary file (1 byte); edit",
    ],
  ])("%s says 1 byte", async (tool, args, said) => {
    await writeFile(path.join(world.root, "nul.bin"), Buffer.from([0]));
    const run = await world.lathe(["call", tool, JSON.stringify(args), "--mode", "yolo"]);
    const envelope = envelopeOf(run);
    expect(envelope.type).toBe("error");
    expect(envelope.error_text).toContain(said);
  });
});
