import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine, type ApprovalRequest } from "../src/main/engine/index.ts";
import type { PermissionRule } from "../src/main/engine/policy/permission-rule.ts";

// Tools that only read (read, grep, glob) are not gated: with no rule they run without asking.
// A rule that says "ask" for a path is the person asking to be asked: it holds for them too.

const TOKEN = "TOKEN=sk-9a7e";

let base: string;
let root: string;
let home: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-ask-rule-")));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  await mkdir(root);
  await mkdir(home);
  await writeFile(path.join(root, ".env"), `${TOKEN}\n`);
  await writeFile(path.join(root, "README.md"), "hello\n");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function withRules(rules: PermissionRule[], run: (engine: Engine) => Promise<void>): Promise<void> {
  await writeFile(path.join(home, "settings.json"), JSON.stringify({ permissions: rules }));
  const engine = await Engine.create({ root, latheHome: home, extensions: false });
  try {
    await run(engine);
  } finally {
    await engine.close();
  }
}

const ASK_ENV: PermissionRule[] = [{ permission: "read", pattern: ".env", action: "ask" }];

describe('an "ask" rule on a tool that is not gated', () => {
  it("control: with no rule, read gives the file without asking", async () => {
    await withRules([], async (engine) => {
      const session = await engine.openSession({ mode: "ask" });
      expect(JSON.stringify(await session.call("read", { path: ".env" }))).toContain(TOKEN);
    });
  });

  it("headless, refuses the read, naming the rule", async () => {
    await withRules(ASK_ENV, async (engine) => {
      const session = await engine.openSession({ mode: "ask" });
      const env = await session.call("read", { path: ".env" });
      expect(env.type === "error" && env.error_text).toMatch(
        /read needs approval .* Reading "\.env" matched the user rule \{permission: "read", pattern: "\.env", action: "ask"\}/,
      );
      expect(JSON.stringify(env)).not.toContain(TOKEN);
      // What the rule does not name still needs no one.
      expect((await session.call("read", { path: "README.md" })).type).toBe("output");
    });
  });

  it("asks a person, and runs when they allow it", async () => {
    await withRules(ASK_ENV, async (engine) => {
      const asked: ApprovalRequest[] = [];
      const session = await engine.openSession({
        mode: "ask",
        approver: async (request) => {
          asked.push(request);
          return "once";
        },
      });
      expect(JSON.stringify(await session.call("read", { path: ".env" }))).toContain(TOKEN);
      expect(asked.map((r) => r.toolId)).toEqual(["read"]);
    });
  });

  it("an fs.read ask rule holds for grep's search of that file too", async () => {
    await withRules([{ permission: "fs.read", pattern: "**/.env", action: "ask" }], async (engine) => {
      const session = await engine.openSession({ mode: "ask" });
      const env = await session.call("grep", { pattern: "TOKEN", path: ".env", output_mode: "content" });
      expect(env.type).toBe("error");
      expect(JSON.stringify(env)).not.toContain(TOKEN);
    });
  });
});
