import { lstatSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isFresh, loginPathCache, type LoginShellAnswer } from "./login-path-cache.ts";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-login-cache-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const K1 = "a".repeat(64);
const K2 = "b".repeat(64);
const PATH_ANSWER: LoginShellAnswer = {
  ok: true,
  path: "/login/bin:/usr/bin",
  shell: "/bin/bash",
  at: 1,
  ms: 40,
};
const FAILED: LoginShellAnswer = {
  ok: false,
  reason: "it did not finish within 3 s",
  shell: "/bin/bash",
  at: 2,
  ms: 3000,
};

describe("the login-shell PATH cache", () => {
  it("gives back each answer for its key, in a file only the user can read, with no temp file left", async () => {
    const cache = loginPathCache(home);
    expect(cache.read(K1)).toBeUndefined();
    cache.write(K1, PATH_ANSWER);
    cache.write(K2, FAILED);
    expect(cache.read(K1)).toEqual(PATH_ANSWER);
    expect(cache.read(K2)).toEqual(FAILED);
    expect(cache.read("c".repeat(64))).toBeUndefined();
    if (process.platform !== "win32") expect(lstatSync(cache.file).mode & 0o777).toBe(0o600);
    expect(await readdir(path.dirname(cache.file))).toEqual(["login-shell-path.json"]);
  });

  it("a file that was readable by others is replaced by one that is not", async () => {
    const cache = loginPathCache(home);
    await mkdir(path.dirname(cache.file), { recursive: true });
    await writeFile(cache.file, "{}", { mode: 0o644 });
    cache.write(K1, PATH_ANSWER);
    if (process.platform !== "win32") expect(lstatSync(cache.file).mode & 0o777).toBe(0o600);
  });

  const entry = (answer: unknown, key: unknown = K1) => JSON.stringify({ entries: [{ key, answer }] });
  it.each([
    ["not JSON", "{entries: ["],
    ["empty", ""],
    ["another shape", JSON.stringify({ key: K1, answer: PATH_ANSWER })],
    ["unknown fields", entry({ ...PATH_ANSWER, trusted: true })],
    ["a PATH with a line break", entry({ ...PATH_ANSWER, path: "/a\n/b" })],
    ["a PATH with a NUL", entry({ ...PATH_ANSWER, path: "/a\u0000/b" })],
    ["an empty PATH", entry({ ...PATH_ANSWER, path: "" })],
    ["a huge PATH", entry({ ...PATH_ANSWER, path: "/x".repeat(40_000) })],
    ["a negative time", entry({ ...PATH_ANSWER, at: -5 })],
    ["ok without a PATH", entry({ ok: true, shell: "/bin/bash", at: 1, ms: 1 })],
    ["a key that is no hash", entry(PATH_ANSWER, "../../etc")],
    ["too many entries", JSON.stringify({ entries: Array(9).fill({ key: K1, answer: PATH_ANSWER }) })],
  ])("ignores a corrupt file (%s), and the next write replaces it", async (_label, text) => {
    const cache = loginPathCache(home);
    await mkdir(path.dirname(cache.file), { recursive: true });
    await writeFile(cache.file, text);
    expect(cache.read(K1)).toBeUndefined();
    cache.write(K2, FAILED);
    expect(cache.read(K2)).toEqual(FAILED);
    expect(JSON.parse(await readFile(cache.file, "utf8"))).toEqual({
      entries: [{ key: K2, answer: FAILED }],
    });
  });

  it("keeps the eight newest answers", () => {
    const cache = loginPathCache(home);
    const keys = Array.from({ length: 10 }, (_, i) => i.toString(16).repeat(64));
    for (const key of keys) cache.write(key, PATH_ANSWER);
    expect(keys.map((key) => cache.read(key) !== undefined)).toEqual([false, false, ...Array(8).fill(true)]);
  });

  it.each([
    ["a PATH an hour old", PATH_ANSWER, 60 * 60_000, true],
    ["a PATH a day old", PATH_ANSWER, 24 * 60 * 60_000, false],
    ["a failure five minutes old", FAILED, 5 * 60_000, true],
    ["a failure ten minutes old", FAILED, 10 * 60_000, false],
    ["an answer from the future (the clock went back)", PATH_ANSWER, -60_000, false],
  ])("%s: fresh is %s", (_label, answer, age, fresh) => {
    expect(isFresh({ ...answer, at: 1_000_000_000 }, 1_000_000_000 + age)).toBe(fresh);
  });
});
