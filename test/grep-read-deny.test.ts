import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/index.ts";
import type { PermissionRule } from "../src/main/engine/policy/permission-rule.ts";

// `fs.read` deny rules keep files from the model: `read .env` is refused. grep finds files by
// itself; a file such a rule covers must not reach the model through grep's matches (its lines)
// or its file list (that it holds the pattern) either.

const TOKEN = "TOKEN=sk-51c0ffee";

let base: string;
let root: string;
let home: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-grep-deny-")));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  await mkdir(path.join(root, "config/secrets"), { recursive: true });
  await mkdir(home);
  await writeFile(path.join(root, ".env"), `${TOKEN}\n`);
  await writeFile(path.join(root, "config/secrets/prod.txt"), `${TOKEN}\n`);
  await writeFile(path.join(root, "notes.md"), "TOKEN comes from the environment file\n");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function grep(rules: PermissionRule[], args: Record<string, unknown>) {
  await writeFile(path.join(home, "settings.json"), JSON.stringify({ permissions: rules }));
  const engine = await Engine.create({ root, latheHome: home, extensions: false });
  try {
    const session = await engine.openSession({ mode: "yolo" });
    return await session.call("grep", args);
  } finally {
    await engine.close();
  }
}

const DENIES: Array<[string, PermissionRule[]]> = [
  ["fs.read **/.env and secrets/**", [
    { permission: "fs.read", pattern: "**/.env", action: "deny" },
    { permission: "fs.read", pattern: "config/secrets/**", action: "deny" },
  ]],
  ["grep's own rules", [
    { permission: "grep", pattern: ".env", action: "deny" },
    { permission: "grep", pattern: "config/secrets", action: "deny" },
  ]],
  ["a * rule", [{ permission: "*", pattern: "{.env,config/secrets/**}", action: "deny" }]],
]; // prettier-ignore

describe("grep and fs.read deny rules", () => {
  it.each(["content", "files_with_matches", "count"])(
    "finds the secret files with no rule (control, %s)",
    async (mode) => {
      const env = await grep([], { pattern: "TOKEN", output_mode: mode });
      const text = JSON.stringify(env);
      expect(text).toContain(".env");
      expect(text).toContain("config/secrets/prod.txt");
    },
  );

  it.each(DENIES)("leaves out what %s deny, and says so", async (_name, rules) => {
    for (const mode of ["content", "files_with_matches", "count"]) {
      const env = await grep(rules, { pattern: "TOKEN", output_mode: mode });
      expect(env.type).toBe("output");
      const data = env.type === "output" ? (env.data as Record<string, unknown>) : {};
      const found = JSON.stringify(data.matches ?? data.files ?? data.counts);
      expect(found).toContain("notes.md");
      expect(found).not.toContain("sk-51c0ffee");
      expect(found).not.toContain('.env"');
      expect(found).not.toContain("prod.txt");
      expect(data.note).toMatch(/left out 2 files a permission rule denies reading: .*\.env/);
    }
  });

  it("refuses a search of a denied file named outright", async () => {
    const env = await grep(DENIES[0]?.[1] ?? [], { pattern: "TOKEN", path: ".env" });
    expect(env.type === "error" && env.error_text).toMatch(/grep was denied: reading "\.env"/);
  });
});
