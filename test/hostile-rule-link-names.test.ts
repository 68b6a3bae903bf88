import { lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/index.ts";
import type { PermissionRule } from "../src/main/engine/policy/permission-rule.ts";
import type { Envelope } from "../src/main/engine/tools/envelope.ts";

// A person denies reading `.env`. A project (someone else's repository) makes `.env` a symlink
// to `cfg/env.real`: the policy used to resolve the link and judge only where it leads, so
// `read .env` returned the secret. A rule that denies a name holds for the file that name leads
// to, through every symlink on the way; only the file's own path can allow it.

const SECRET = "sk-link-5ec2e7";

let base: string;
let root: string;
let home: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-link-names-")));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  for (const dir of [home, root, path.join(root, "cfg"), path.join(root, "secrets"), path.join(root, "pub")])
    await mkdir(dir);
  await writeFile(path.join(root, "cfg/env.real"), `TOKEN=${SECRET}\n`);
  await writeFile(path.join(root, "pub/k"), `KEY=${SECRET}\n`);
  await writeFile(path.join(root, "secrets/real"), `KEY=${SECRET}\n`);
  // The project's links: `.env` is one, `chain` leads to it through another, `here` is the root.
  await symlink("cfg/env.real", path.join(root, ".env"));
  await symlink(".env", path.join(root, "chain"));
  await symlink(".", path.join(root, "here"));
  // A denied folder holding a link out of it, reached through a link to the folder.
  await symlink("../pub/k", path.join(root, "secrets/k"));
  await symlink("secrets", path.join(root, "s2"));
  // A link whose own name an allow rule names, leading into a denied folder.
  await symlink("secrets/real", path.join(root, "public.txt"));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Make the calls in order in one session under these user rules; the last one's envelope. */
async function calls(
  rules: PermissionRule[],
  list: Array<[string, Record<string, unknown>]>,
  mode: "yolo" | "ask" = "yolo",
): Promise<Envelope> {
  await writeFile(path.join(home, "settings.json"), JSON.stringify({ permissions: rules }));
  const engine = await Engine.create({ root, latheHome: home, extensions: false });
  try {
    const session = await engine.openSession({ mode });
    let last: Envelope | undefined;
    for (const [tool, args] of list) last = await session.call(tool, args);
    return last as Envelope;
  } finally {
    await engine.close();
  }
}

const call = (
  rules: PermissionRule[],
  tool: string,
  args: Record<string, unknown>,
  mode: "yolo" | "ask" = "yolo",
): Promise<Envelope> => calls(rules, [[tool, args]], mode);

const denyEnv: PermissionRule = { permission: "fs.read", pattern: ".env", action: "deny" };

describe("a deny rule on a name holds for the file a symlink of that name leads to", () => {
  const rows: Array<[string, PermissionRule[], string, Record<string, unknown>, RegExp]> = [
    ["read of the link", [denyEnv], "read", { path: ".env" }, /reading "\.env" \(through a symlink\)/],
    ["read through a chain of links", [denyEnv], "read", { path: "chain" }, /reading "\.env"/],
    ["read through a linked folder", [denyEnv], "read", { path: "here/.env" }, /reading "(here\/)?\.env"/],
    ["read by an absolute path", [denyEnv], "read", { path: "ROOT/.env" }, /reading "\.env"/],
    [
      "grep of the link",
      [denyEnv],
      "grep",
      { pattern: "TOKEN", path: ".env", output_mode: "content" },
      /grep was denied/,
    ],
    [
      "read of a denied folder's link, through a link to the folder",
      [{ permission: "fs.read", pattern: "secrets/**", action: "deny" }],
      "read",
      { path: "s2/k" },
      /reading "secrets\/k"/,
    ],
    [
      "a rule for the read tool itself",
      [{ permission: "read", pattern: ".env", action: "deny" }],
      "read",
      { path: ".env" },
      /reading "\.env"/,
    ],
    [
      "a more specific allow on the target does not lift the name's deny",
      [denyEnv, { permission: "fs.read", pattern: "cfg/env.real", action: "allow" }],
      "read",
      { path: ".env" },
      /reading "\.env"/,
    ],
    [
      "an allow on the link's name does not open a denied target",
      [
        { permission: "fs.read", pattern: "secrets/**", action: "deny" },
        { permission: "fs.read", pattern: "public.txt", action: "allow" },
      ],
      "read",
      { path: "public.txt" },
      /reading "secrets\/real" matched/,
    ],
  ];

  it.each(rows)("%s: read without the rule, refused with it", async (_name, rules, tool, raw, reason) => {
    const args = JSON.parse(JSON.stringify(raw).replace("ROOT", root)) as Record<string, unknown>;
    // Positive control: with no rule the call shows the secret.
    const open = await call([], tool, args);
    expect(JSON.stringify(open)).toContain(SECRET);

    const refused = await call(rules, tool, args);
    expect(refused.type).toBe("error");
    const text = refused.type === "error" ? refused.error_text : "";
    expect(text).toMatch(reason);
    expect(text).toMatch(
      /matched the user rule \{permission: "(fs\.read|read)", pattern: "[^"]+", action: "deny"\}/,
    );
    expect(JSON.stringify(refused)).not.toContain(SECRET);
  });

  it("says the rule covers the file by that name, not where the link leads", async () => {
    const refused = await call([denyEnv], "read", { path: ".env" });
    expect(refused.type === "error" && refused.error_text).toMatch(
      /do not try to reach it by another path\. If the task needs it, ask the user\./,
    );
    // Where the secret is stored is not for the refusal to tell.
    expect(JSON.stringify(refused)).not.toContain("env.real");
  });

  it("refuses a write and an edit through a link whose name a write deny covers; the file is unchanged", async () => {
    const denyWrite: PermissionRule = { permission: "fs.write", pattern: ".env", action: "deny" };
    const target = path.join(root, "cfg/env.real");
    const readFirst: [string, Record<string, unknown>] = ["read", { path: ".env" }];
    // Positive control: without the rule, the write lands in the file the link leads to.
    const open = await calls([], [readFirst, ["write", { path: ".env", content: "changed\n" }]]);
    expect(open.type).toBe("output");
    expect(await readFile(target, "utf8")).toBe("changed\n");
    await writeFile(target, `TOKEN=${SECRET}\n`);

    const write = await calls(
      [denyWrite],
      [readFirst, ["write", { path: ".env", content: "overwritten\n" }]],
    );
    expect(write.type === "error" && write.error_text).toMatch(/writing "\.env" \(through a symlink\)/);
    const edit = await calls(
      [denyWrite],
      [readFirst, ["edit", { path: ".env", old_string: SECRET, new_string: "x" }]],
    );
    expect(edit.type === "error" && edit.error_text).toMatch(/writing "\.env" \(through a symlink\)/);
    expect(await readFile(target, "utf8")).toBe(`TOKEN=${SECRET}\n`);
    expect((await lstat(path.join(root, ".env"))).isSymbolicLink()).toBe(true);
  });

  it("asks about a link whose name an ask rule covers, even for a tool that reads unasked", async () => {
    const ask: PermissionRule = { permission: "fs.read", pattern: ".env", action: "ask" };
    const refused = await call([ask], "read", { path: ".env" }, "ask");
    expect(refused.type === "error" && refused.error_text).toMatch(
      /needs approval .* Reading "\.env" \(through a symlink\) matched the user rule \{permission: "fs\.read", pattern: "\.env", action: "ask"\}/,
    );
    // What it suggests names the link, not where it leads.
    expect(JSON.stringify(refused)).not.toContain("env.real");
    expect(JSON.stringify(refused)).not.toContain(SECRET);
  });

  it("leaves out of a search a symlinked file whose chain of links passes a denied name", async () => {
    const grep = { pattern: "TOKEN", output_mode: "content" };
    const paths = (e: Envelope) =>
      e.type === "output"
        ? (e.data as { matches: { path: string }[] }).matches.map((m) => m.path).sort()
        : [];
    // Control: every name of the file shows its line.
    expect(paths(await call([], "grep", grep))).toEqual([".env", "cfg/env.real", "chain"]);
    // `chain -> .env -> cfg/env.real`: `chain` passes `.env` on its way. The stored file keeps
    // its own name, which no rule denies (rules judge names: see the README).
    const denied = await call([denyEnv], "grep", grep);
    expect(paths(denied)).toEqual(["cfg/env.real"]);
    expect(denied.type === "output" && (denied.data as { note?: string }).note).toMatch(/left out 2 files/);
  });

  it("leaves a link alone that no rule names: the file's own path decides", async () => {
    const other: PermissionRule = { permission: "fs.read", pattern: "other/**", action: "deny" };
    const read = await call([other], "read", { path: "chain" });
    expect(JSON.stringify(read)).toContain(SECRET);
  });
});
