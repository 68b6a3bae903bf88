import { describe, expect, it } from "vitest";
import { ownIdentity, processStartTime, startTimeOf } from "./process-start.ts";
import { ownedTempPrefix, ownerOfTempName } from "./temp-folder-name.ts";

// A temp folder's name records the process that made it; a later run reads it back to decide
// whether that process is gone. Only names of the exact form are read as Lathe's.

const owner = { pid: 48213, start: 987654321, namespace: 4026531836 };

describe("a temp folder's name", () => {
  it("reads back the owner it was made for, whatever the label", () => {
    for (const label of ["s-mwx0wn3r-84ecdefd", "spawner", "mcp-my_server", "a.b c/d"]) {
      const name = `${ownedTempPrefix(label, owner)}Xy9Za0`;
      expect(name.startsWith("lathe-")).toBe(true);
      expect(ownerOfTempName(name)).toEqual(owner);
    }
  });

  it("keeps a label's characters to those a name may hold", () => {
    expect(ownedTempPrefix("a.b c/d", owner)).toMatch(/^lathe-a_b_c_d-[0-9a-z]+\.[0-9a-z]+\.[0-9a-z]+-$/);
    expect(() => ownedTempPrefix("", owner)).toThrow(/must not be empty/);
  });

  it.each([
    ["an older Lathe's name", "lathe-s1-Xy9Za0"],
    ["an older spawner's name", "lathe-spawner-Xy9Za0"],
    ["a test's folder", "lathe-file-tools-Xy9Za0"],
    ["another program's", "tsx-1000"],
    ["a random part too short", `${ownedTempPrefix("s", owner)}Xy9Za`],
    ["something after the random part", `${ownedTempPrefix("s", owner)}Xy9Za0.old`],
    ["two owner parts only", "lathe-s-abc.def-Xy9Za0"],
    ["a pid of 0", "lathe-s-0.abc.def-Xy9Za0"],
    ["a pid no OS hands out", `lathe-s-${(2 ** 31).toString(36)}.abc.def-Xy9Za0`],
    ["upper case in the owner part", "lathe-s-ABC.def.ghi-Xy9Za0"],
    ["no label", "lathe--abc.def.ghi-Xy9Za0"],
  ])("is not read as Lathe's: %s", (_what, name) => {
    expect(ownerOfTempName(name)).toBeUndefined();
  });
});

describe("a process's start time", () => {
  it("is read from /proc/<pid>/stat, whatever the command name holds", () => {
    const fields = (comm: string): string =>
      `1234 (${comm}) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 55512345 1000 200 18446744073709551615`;
    expect(startTimeOf(fields("node"))).toBe(55512345);
    expect(startTimeOf(fields("a) b (c) 9 9"))).toBe(55512345);
    expect(startTimeOf("garbage")).toBeUndefined();
    expect(startTimeOf("1 (x) S 1 2 3")).toBeUndefined();
  });

  it.skipIf(process.platform !== "linux")(
    "of this process is what its temp folders record (Linux)",
    async () => {
      const self = ownIdentity();
      expect(self.pid).toBe(process.pid);
      expect(self.start).toBe(processStartTime(process.pid));
      expect(self.start).toBeGreaterThan(0);
      expect(self.namespace).toBeGreaterThan(0);
      expect(processStartTime(2 ** 31 - 1)).toBeUndefined();
    },
  );
});
