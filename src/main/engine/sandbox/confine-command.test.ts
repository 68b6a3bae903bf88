import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { confineCommand } from "./confine-command.ts";
import { machineSandbox } from "./sandbox-availability.ts";

const machine = await machineSandbox();
const LINUX = process.platform === "linux";
if (!LINUX || !machine.active)
  console.log(
    `confine-command rows are skipped: they need bubblewrap's mount points (Linux) and an active sandbox (${machine.active ? "active" : machine.reason})`,
  );

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-confine-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!LINUX || !machine.active)("confineCommand without network", () => {
  it("removes the placeholders bubblewrap made in the working directory once the command is released", async () => {
    // The library protects shell and git files around the process's working directory, making
    // empty placeholders on the host for the missing ones to mount over.
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const confined = await confineCommand(
        "true",
        { writable: [dir], readOnly: [], network: [], missingFiles: "leave" },
        { manager: () => Promise.reject(new Error("a command without network needs no manager")) },
      );
      execFileSync("/bin/bash", ["-c", confined.line]);
      // Positive control: bubblewrap left placeholders behind.
      expect(readdirSync(dir).length).toBeGreaterThan(0);
      expect(confined.release()).toEqual([]);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });
});
