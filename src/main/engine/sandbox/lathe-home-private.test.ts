import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { latheHomeHiding } from "./lathe-home-private.ts";

let base: string;
let home: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-home-private-")));
  home = path.join(base, "lathe");
  for (const dir of ["models", "tools", "cache", "sessions"])
    await mkdir(path.join(home, dir), { recursive: true });
});

afterAll(() => rm(base, { recursive: true, force: true }));

describe("latheHomeHiding: what confined processes cannot read of $LATHE_HOME", () => {
  it("hides the whole folder, files created later included, and gives back its public folders there now", () => {
    expect(latheHomeHiding(home, [])).toEqual({
      unreadable: [home],
      readable: ["models", "tools", "cache"].map((name) => path.join(home, name)),
    });
  });

  it.each([
    ["the public folder itself", (h: string) => [path.join(h, "models")], ["tools", "cache"]],
    ["a folder holding it", () => [base], []],
    ["a name that only starts like it", (h: string) => [path.join(h, "mod")], ["models", "tools", "cache"]],
  ])("keeps a public folder hidden when denyRead names %s", (_what, deny, readable) => {
    expect(latheHomeHiding(home, deny(home)).readable).toEqual(readable.map((name) => path.join(home, name)));
  });

  it.each([
    ["the home folder", () => os.homedir()],
    ["the root", () => "/"],
  ])(
    "hides only Lathe's private files when $LATHE_HOME is %s (hiding it would hide everything)",
    (_what, where) => {
      const hiding = latheHomeHiding(where(), []);
      expect(hiding.readable).toEqual([]);
      expect(hiding.unreadable).toContain(path.join(where(), "lathe.db"));
      expect(hiding.unreadable).toContain(path.join(where(), "checkpoints"));
      expect(hiding.unreadable).not.toContain(where());
    },
  );
});
