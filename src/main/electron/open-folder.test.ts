import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openFolder } from "./open-folder.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-open-folder-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("openFolder", () => {
  it("creates a folder that does not exist yet, then opens it", async () => {
    const folder = path.join(dir, "Lathe", "logs");
    const open = vi.fn(async (target: string) => ((await stat(target)).isDirectory() ? "" : "not a folder"));
    await openFolder(folder, open);
    expect(open).toHaveBeenCalledWith(folder);
    // Lathe's home and its logs are private, as the database and the log writer make them.
    for (const made of [path.join(dir, "Lathe"), folder]) expect((await stat(made)).mode & 0o777).toBe(0o700);
  });

  it("rejects with the folder and the OS's reason when it cannot be opened", async () => {
    await expect(openFolder(dir, async () => "No application is registered")).rejects.toThrow(
      `Lathe could not open ${dir}: No application is registered`,
    );
  });

  it("rejects when the folder cannot be created, without calling the opener", async () => {
    await writeFile(path.join(dir, "file"), "");
    const open = vi.fn(async () => "");
    await expect(openFolder(path.join(dir, "file", "sub"), open)).rejects.toThrow();
    expect(open).not.toHaveBeenCalled();
  });
});
