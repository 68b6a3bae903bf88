import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Engine } from "../src/main/engine/index.ts";
import { loadSettings } from "../src/main/engine/config/lathe-settings.ts";

// A person's settings may hold thousands of permission rules (every "always" they answered).
// Opening an engine asks for the user's file several times (the policy, the MCP servers, the
// plugins' disabledPlugins); each time it was parsed and checked again, a third of a second
// apiece for 8,000 rules. Counted here: how many times a settings text is parsed.
const parsed = vi.hoisted(() => ({ texts: [] as string[] }));
vi.mock(import("../src/main/engine/config/json-text.ts"), async (original) => {
  const actual = await original();
  return {
    ...actual,
    parseJsonText: (bytes: Uint8Array) => {
      parsed.texts.push(Buffer.from(bytes).toString("utf8"));
      return actual.parseJsonText(bytes);
    },
  };
});

let base: string;
let root: string;
let home: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-settings-reads-")));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  await mkdir(root);
  await mkdir(path.join(home, "tools"), { recursive: true });
  await writeFile(path.join(root, "a.txt"), "hello\n");
  parsed.texts = [];
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const RULES = Array.from({ length: 8_000 }, (_, i) => ({
  permission: "read",
  pattern: `src/module${i}/**`,
  action: "allow",
}));

const userParses = (marker: string) => parsed.texts.filter((t) => t.includes(marker)).length;

describe("the user's settings file", () => {
  it("is parsed once for an engine and its calls, however many parts of Lathe read it", async () => {
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ permissions: RULES }));
    const empty = path.join(base, "no-bundled-plugins");
    await mkdir(empty);
    const engine = await Engine.create({
      root,
      latheHome: home,
      watchExtensions: false,
      bundledPluginsDir: empty,
    });
    try {
      const session = await engine.openSession({ mode: "ask" });
      expect((await session.call("read", { path: "a.txt" })).type).toBe("output");
    } finally {
      await engine.close();
    }
    expect(userParses("src/module7999/**")).toBe(1);
  });

  it("is parsed again when its bytes change, so a hand edit is seen at once", async () => {
    const file = path.join(home, "settings.json");
    await writeFile(file, JSON.stringify({ defaultModel: "ollama:first" }));
    expect(loadSettings(file).defaultModel).toBe("ollama:first");
    expect(loadSettings(file).defaultModel).toBe("ollama:first");
    expect(userParses("ollama:first")).toBe(1);

    await writeFile(file, JSON.stringify({ defaultModel: "ollama:second" }));
    expect(loadSettings(file).defaultModel).toBe("ollama:second");
    // The same bytes written again (a save without a change) need no second parse.
    await writeFile(file, JSON.stringify({ defaultModel: "ollama:second" }));
    expect(loadSettings(file).defaultModel).toBe("ollama:second");
    expect(userParses("ollama:second")).toBe(1);

    // A file broken by hand is refused each time it is asked for, never answered from before.
    await writeFile(file, '{"defaultModel": "ollama:third",}');
    expect(() => loadSettings(file)).toThrow(/not valid JSON/);
    expect(() => loadSettings(file)).toThrow(/not valid JSON/);
  });
});
