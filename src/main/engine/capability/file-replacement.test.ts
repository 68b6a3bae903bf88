import { chmod, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { replacementFor } from "./file-replacement.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-replacement-"));
});
afterEach(async () => {
  await chmod(dir, 0o755);
  await rm(dir, { recursive: true, force: true });
});

describe("replacementFor", () => {
  it("renames over a file of one name, of this user, in a folder new files can be made in", async () => {
    const file = path.join(dir, "f.txt");
    await writeFile(file, "x");
    expect(await replacementFor(file, await stat(file))).toBe("rename");
  });

  // Root may make files in any folder, so the folder's refusal is given here as a check's answer.
  it.each([
    ["may not", false, "in-place"],
    ["may", true, "rename"],
  ])("for a folder this user %s make files in: %s", async (_what, may, expected) => {
    const file = path.join(dir, "f.txt");
    await writeFile(file, "x");
    const asked: string[] = [];
    const how = await replacementFor(file, await stat(file), async (folder) => {
      asked.push(folder);
      return may;
    });
    expect(how).toBe(expected);
    expect(asked).toEqual([dir]);
  });
});
