import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ConvenienceFile } from "./convenience-file.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-convenience-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const Schema = z.object({ recent: z.array(z.string()) });

describe("ConvenienceFile", () => {
  it("writes into a Lathe home it makes private (0700), the file readable by its owner only", async () => {
    // A fresh machine whose first write is this file: Lathe's home does not exist yet.
    const home = path.join(dir, "home", ".lathe");
    const problems: string[] = [];
    const store = new ConvenienceFile(path.join(home, "recent-projects.json"), Schema, (m) =>
      problems.push(m),
    );
    store.write({ recent: ["/work/a"] });
    expect(store.read()).toEqual({ recent: ["/work/a"] });
    expect(JSON.parse(await readFile(store.file, "utf8"))).toEqual({ recent: ["/work/a"] });
    for (const made of [path.join(dir, "home"), home]) expect((await stat(made)).mode & 0o777).toBe(0o700);
    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    expect(problems).toEqual([]);
  });
});
