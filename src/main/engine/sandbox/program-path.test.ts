import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findProgram, programPath } from "./program-path.ts";

let base: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-program-path-"));
  for (const dir of ["a", "b", "c"]) await mkdir(path.join(base, dir));
  // a: a folder and a file that may not run, both named like the program; b: the real one.
  await mkdir(path.join(base, "a", "tool"));
  await writeFile(path.join(base, "a", "other"), "#!/bin/sh\n");
  await writeFile(path.join(base, "b", "tool"), "#!/bin/sh\n");
  await chmod(path.join(base, "b", "tool"), 0o755);
  await writeFile(path.join(base, "c", "other"), "#!/bin/sh\n");
  await chmod(path.join(base, "c", "other"), 0o755);
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe.skipIf(process.platform === "win32")("programPath (skipped on Windows: no execute bit)", () => {
  it("finds the first executable regular file on PATH, as which does", () => {
    const PATH = ["", "relative", "a", "b", "c"].map((d) =>
      d === "" || d === "relative" ? d : path.join(base, d),
    );
    const env = { PATH: PATH.join(path.delimiter) };
    expect(programPath("tool", env)).toBe(path.join(base, "b", "tool"));
    // root may execute a file without x bits only when some x bit is set: a/other has none.
    expect(programPath("other", env)).toBe(path.join(base, "c", "other"));
    expect(programPath("missing", env)).toBeUndefined();
    expect(programPath("tool", {})).toBeUndefined();
  });

  it("findProgram looks again each time; programPath keeps its first answer", async () => {
    const env = { PATH: path.join(base, "c") };
    expect(findProgram("late", env)).toBeUndefined();
    expect(programPath("late", env)).toBeUndefined();
    await writeFile(path.join(base, "c", "late"), "#!/bin/sh\n");
    await chmod(path.join(base, "c", "late"), 0o755);
    expect(findProgram("late", env)).toBe(path.join(base, "c", "late"));
    expect(programPath("late", env)).toBeUndefined();
  });
});
