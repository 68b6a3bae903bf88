import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/index.ts";
import type { PermissionRule } from "../src/main/engine/policy/permission-rule.ts";

// A deny rule holds however the thing it names is spelled: a path rule written `./secrets` or
// `docs/../secrets/**` as `secrets` is, a command rule `rm:*` against `/bin/rm`, which the
// capability check itself reads as `rm`, and `git push:*` against git's options before the
// subcommand (`git -C . push`). Each row first shows the call doing its damage with no rule.

let base: string;
let root: string;
let home: string;

const SECRET = "SECRET-4f1c9a";

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-rule-spellings-")));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  await mkdir(path.join(root, "secrets"), { recursive: true });
  await mkdir(path.join(root, "docs"));
  await mkdir(home);
  await writeFile(path.join(root, "secrets/key.txt"), `${SECRET}\n`);
  await writeFile(path.join(root, "victim.txt"), "keep\n");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, stdio: "ignore" });
  git("init", "-q");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start");
  git("init", "-q", "--bare", "remote.git");
  git("remote", "add", "origin", path.join(root, "remote.git"));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A yolo session under these user rules: only a rule (or the watchdog) can refuse a call. */
async function callWith(rules: PermissionRule[], tool: string, args: Record<string, unknown>) {
  await writeFile(path.join(home, "settings.json"), JSON.stringify({ permissions: rules }));
  const engine = await Engine.create({ root, latheHome: home, extensions: false });
  try {
    const session = await engine.openSession({ mode: "yolo" });
    return await session.call(tool, args);
  } finally {
    await engine.close();
  }
}

const pushed = () => {
  try {
    execFileSync("git", ["--git-dir", path.join(root, "remote.git"), "rev-parse", "--verify", "-q", "HEAD"], {
      stdio: "ignore",
    });
    return true;
  } catch {
    return false;
  }
};
const commits = () =>
  Number(execFileSync("git", ["rev-list", "--count", "HEAD"], { cwd: root, encoding: "utf8" }).trim());

interface Row {
  name: string;
  rule: PermissionRule;
  tool: string;
  args: Record<string, unknown>;
  /** Whether the call did what the rule forbids, given its envelope. */
  damaged: (output: string) => boolean;
}

const leaked = (output: string) => output.includes(SECRET);
const removed = () => !existsSync(path.join(root, "victim.txt"));
const readKey = { tool: "read", args: { path: "secrets/key.txt" }, damaged: leaked };
const deny = (permission: string, pattern: string): PermissionRule => ({
  permission,
  pattern,
  action: "deny",
});

const rows: Row[] = [
  { name: "a path rule with ./", rule: deny("read", "./secrets"), ...readKey },
  { name: "a path rule with ./ and a trailing /", rule: deny("read", "./secrets/"), ...readKey },
  { name: "a path rule with //", rule: deny("fs.read", "secrets//key.txt"), ...readKey },
  { name: "a path rule with ..", rule: deny("fs.read", "docs/../secrets/**"), ...readKey },
  { name: "a glob with a trailing /", rule: deny("fs.read", "secrets/**/"), ...readKey },
  { name: "an absolute path rule with //", rule: deny("read", "{root}//secrets"), ...readKey },
  { name: "rm:* against /bin/rm", rule: deny("bash", "rm:*"), tool: "bash", args: { command: "/bin/rm victim.txt" }, damaged: removed },
  { name: "rm * against /usr/bin/rm", rule: deny("bash", "rm *"), tool: "bash", args: { command: "/usr/bin/rm -f victim.txt" }, damaged: removed },
  { name: "git push:* against git -C . push", rule: deny("bash", "git push:*"), tool: "bash", args: { command: "git -C . push -q origin HEAD" }, damaged: pushed },
  { name: "git push:* against git --no-pager push", rule: deny("bash", "git push:*"), tool: "bash", args: { command: "git --no-pager push -q origin HEAD" }, damaged: pushed },
  { name: "git push:* against /usr/bin/git push", rule: deny("shell.run", "git push:*"), tool: "bash", args: { command: "/usr/bin/git push -q origin HEAD" }, damaged: pushed },
  { name: "git commit:* against git -c user.name=x commit", rule: deny("bash", "git commit:*"), tool: "bash", args: { command: "git -c user.name=x -c user.email=x@x commit -q --allow-empty -m more" }, damaged: () => commits() > 1 },
]; // prettier-ignore

const withRoot = (rule: PermissionRule): PermissionRule => ({
  ...rule,
  pattern: rule.pattern.replace("{root}", root),
});

describe("a deny rule, however the call spells what it names", () => {
  it.each(rows)("$name: the call does its damage with no rule (control)", async (row) => {
    const env = await callWith([], row.tool, row.args);
    expect(env.type, JSON.stringify(env)).toBe("output");
    expect(row.damaged(JSON.stringify(env))).toBe(true);
  });

  it.each(rows)("$name: is denied by the rule", async (row) => {
    const env = await callWith([withRoot(row.rule)], row.tool, row.args);
    expect(env.type === "error" && env.error_text).toMatch(/was denied: .* matched the user rule/);
    expect(row.damaged(JSON.stringify(env))).toBe(false);
  });

  it("an allow rule is not widened: allowing git push:* does not let git -c … push through", async () => {
    const env = await callWith([{ permission: "bash", pattern: "git push:*", action: "allow" }], "bash", {
      command: "git -c core.sshCommand=true push -q origin HEAD",
    });
    expect(env.type === "error" && env.error_text).toMatch(/needs approval/);
    expect(pushed()).toBe(false);
  });
});
