import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { heldPaths } from "./held-paths.ts";
import { shellWord } from "./shell-word.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-held-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("how protected paths are handed to the sandbox", () => {
  it("mounts what exists as itself, covers a missing folder, and watches a missing file", async () => {
    await mkdir(path.join(dir, "hooks"));
    await writeFile(path.join(dir, "config"), "");
    const held = heldPaths([
      { path: path.join(dir, "hooks"), kind: "folder", what: "hooks" },
      { path: path.join(dir, "config"), kind: "file", what: "config" },
      { path: path.join(dir, "modules"), kind: "folder", what: "modules" },
      { path: path.join(dir, "commondir"), kind: "file", what: "commondir" },
      { path: path.join(dir, "hooks"), kind: "folder", what: "again" },
    ]);
    expect(held).toEqual({
      denyWrite: [
        path.join(dir, "hooks"),
        path.join(dir, "config"),
        path.join(dir, "modules/.lathe-protected"),
      ],
      // Covering it would leave an unreadable device there, which stops git: it is watched instead.
      watched: [path.join(dir, "commondir")],
    });
  });

  it.each([
    ["plain", "plain"],
    ["with space", "'with space'"],
    ["it's", "'it'\\''s'"],
    ["$(touch x)", "'$(touch x)'"],
    ["a;b", "'a;b'"],
    ["", "''"],
  ])("quotes %j for bash as %s", (word, quoted) => {
    expect(shellWord(word)).toBe(quoted);
  });
});
