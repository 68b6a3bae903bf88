import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  machineKey,
  SandboxAvailabilityCache,
  sandboxAvailabilityCache,
} from "./sandbox-availability-cache.ts";
import { machineSandbox, type SandboxStatus } from "./sandbox-availability.ts";

let base: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-sandbox-cache-"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const ACTIVE: SandboxStatus = { active: true, mechanism: "bubblewrap", warnings: ["seccomp not available"] };
const INACTIVE: SandboxStatus = {
  active: false,
  reason: "the sandbox cannot start: bubblewrap (bwrap) not installed",
  fix: "install it",
  warnings: [],
};

async function program(dir: string, name: string, body = "#!/bin/sh\nexit 0\n"): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, name), body);
  await chmod(path.join(dir, name), 0o755);
}

describe("the sandbox availability cache", () => {
  it("gives back the answer kept for the same key, and none for another", () => {
    const cache = sandboxAvailabilityCache(base);
    expect(cache.read("k1")).toBeUndefined();
    cache.write("k1", ACTIVE);
    expect(cache.read("k1")).toEqual(ACTIVE);
    expect(cache.read("k2")).toBeUndefined();
    cache.write("k2", INACTIVE);
    expect(cache.read("k2")).toEqual(INACTIVE);
    expect(cache.read("k1")).toBeUndefined();
  });

  it.each([
    ["not JSON", "{active: true"],
    ["another shape", JSON.stringify({ key: "k", status: { active: "yes", warnings: [] } })],
    ["unknown fields", JSON.stringify({ key: "k", status: { ...ACTIVE, trusted: true } })],
    ["empty", ""],
  ])("ignores a file that is %s (the check then runs and writes it anew)", async (_name, text) => {
    const cache = new SandboxAvailabilityCache(path.join(base, "cache", "sandbox-availability.json"));
    await mkdir(path.dirname(cache.file), { recursive: true });
    await writeFile(cache.file, text);
    expect(cache.read("k")).toBeUndefined();
    cache.write("k", ACTIVE);
    expect(JSON.parse(await readFile(cache.file, "utf8"))).toEqual({ key: "k", status: ACTIVE });
  });

  it("keys on the programs the sandbox needs: installing, replacing or removing one changes the key", async () => {
    const bin = path.join(base, "bin");
    await mkdir(bin);
    const env = { PATH: `${bin}${path.delimiter}/nonexistent` };
    const none = machineKey(env);
    expect(machineKey(env)).toBe(none);
    const name = process.platform === "darwin" ? "sandbox-exec" : "bwrap";
    await program(bin, name);
    const installed = machineKey(env);
    expect(installed).not.toBe(none);
    await program(bin, name, "#!/bin/sh\n# a newer build\nexit 0\n");
    expect(machineKey(env)).not.toBe(installed);
    await rm(path.join(bin, name));
    expect(machineKey(env)).toBe(none);
  });

  it("keys on where PATH finds them", async () => {
    const first = path.join(base, "first");
    const second = path.join(base, "second");
    await program(first, "rg");
    await program(second, "rg");
    expect(machineKey({ PATH: [first, second].join(path.delimiter) })).not.toBe(
      machineKey({ PATH: [second, first].join(path.delimiter) }),
    );
  });

  it("is what an engine's start reads: the answer kept for this machine's key, without a sandbox started", async () => {
    const cache = sandboxAvailabilityCache(base);
    const kept = { ...INACTIVE, reason: "kept by the test" };
    cache.write(machineKey(), kept);
    expect(await machineSandbox(undefined, cache)).toEqual(kept);
    // `lathe doctor` checks again whatever is kept, and keeps the real answer.
    const fresh = await machineSandbox(undefined, cache, { refresh: true });
    expect(fresh.reason).not.toBe("kept by the test");
    expect(cache.read(machineKey())).toEqual(fresh);
  });

  it("is checked again by a process that lives on (the daemon) once the machine changed, not only at its next start", async () => {
    const cache = sandboxAvailabilityCache(base);
    const saved = process.env["PATH"];
    // A program the sandbox needs, found at another place on PATH (installed, removed, replaced).
    const onPath = async (dir: string): Promise<void> => {
      await program(path.join(base, dir), "rg");
      process.env["PATH"] = `${path.join(base, dir)}${path.delimiter}${saved ?? ""}`;
    };
    try {
      await onPath("first");
      cache.write(machineKey(), { ...INACTIVE, reason: "first" });
      const kept = await machineSandbox(undefined, cache);
      expect(kept.reason).toBe("first");
      // The process's own answer stands while nothing it depends on changed…
      cache.write(machineKey(), { ...INACTIVE, reason: "rewritten" });
      expect(await machineSandbox(undefined, cache)).toBe(kept);
      // …and a change makes the same process look again.
      await onPath("second");
      cache.write(machineKey(), { ...INACTIVE, reason: "second" });
      expect((await machineSandbox(undefined, cache)).reason).toBe("second");
    } finally {
      process.env["PATH"] = saved;
    }
  });
});

describe("the cache file's permissions", () => {
  it.each([
    ["a new file", undefined],
    ["one an older Lathe left readable by others", 0o644],
    ["one left writable by everyone", 0o666],
  ])("%s is left readable by the user alone, in a folder of the user's", async (_, before) => {
    const cache = sandboxAvailabilityCache(path.join(base, "home"));
    if (before !== undefined) {
      await mkdir(path.dirname(cache.file), { recursive: true });
      await writeFile(cache.file, "{}");
      await chmod(cache.file, before);
    }
    const umask = process.umask(0o022);
    try {
      cache.write("key-1", ACTIVE);
    } finally {
      process.umask(umask);
    }
    expect((await stat(cache.file)).mode & 0o777).toBe(0o600);
    if (before === undefined) expect((await stat(path.dirname(cache.file))).mode & 0o777).toBe(0o700);
    expect(cache.read("key-1")).toEqual(ACTIVE);
    expect(await readdir(path.dirname(cache.file))).toEqual(["sandbox-availability.json"]);
  });
});
