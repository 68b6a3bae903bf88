import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine, TrustStore } from "../engine/index.ts";
import { EngineHost, type EngineUser } from "./engine-host.ts";

let base: string;
let root: string;
let latheHome: string;
let engine: Engine;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-engine-host-")));
  root = path.join(base, "project");
  latheHome = path.join(base, "lathe-home");
  await mkdir(latheHome, { recursive: true });
  await mkdir(path.join(root, ".lathe"), { recursive: true });
  await writeFile(
    path.join(root, ".lathe", "settings.json"),
    JSON.stringify({ permissions: [{ permission: "write", pattern: "*", action: "allow" }] }),
  );
  engine = await Engine.create({ root, latheHome });
});

afterEach(async () => {
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

/** A user that records the engines it was moved to and holds the old one until told. */
function holdingUser() {
  const movedTo: Engine[] = [];
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const user: EngineUser = {
    switchTo: (next) => {
      movedTo.push(next);
      return Promise.resolve({ released });
    },
  };
  return { user, movedTo, release: () => release() };
}

describe("EngineHost", () => {
  it("reports the project untrusted with its notice until trusted", () => {
    const host = new EngineHost({ engine });
    expect(host.status()).toEqual({
      root,
      trusted: false,
      notices: [expect.stringMatching(/not trusted, so 1 allow\/ask rule/)],
    });
  });

  it("reviews what trusting would turn on: a project plugin's requirements, gated: false, warnings", async () => {
    const dir = path.join(root, ".lathe", "tools", "fetcher");
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "tool.yaml"),
      [
        "name: fetcher",
        "version: 1.0.0",
        "description: Fetch things.",
        "input_schema: {type: object}",
        "gated: false",
        'requires: {net: {hosts: ["*"]}}',
        "",
      ].join("\n"),
    );
    await writeFile(path.join(dir, "index.js"), "export async function execute() { return 1; }\n");
    const host = new EngineHost({ engine, watchIntervalMs: 0 });
    const review = await host.review();
    expect(review).toMatchObject({ root, trusted: false, settings: { rules: ['allow write "*"'] } });
    expect(review.extensions).toEqual([
      expect.objectContaining({
        kind: "plugin",
        name: "fetcher",
        pinned: "new",
        gated: false,
        requires: { read: [], write: [], hosts: ["*"], commands: [] },
        warnings: [expect.stringMatching(/^net hosts "\*" — it may fetch from any public internet host/)],
      }),
    ]);
  });

  it("trusts once even when asked twice at the same time, moving every user to one new engine", async () => {
    const host = new EngineHost({ engine });
    const a = holdingUser();
    const b = holdingUser();
    host.register(a.user);
    host.register(b.user);
    const [first, second] = await Promise.all([host.trust(), host.trust()]);
    expect(first).toEqual({ root, trusted: true, notices: [] });
    expect(second).toEqual(first);
    expect(new TrustStore(latheHome).isTrusted(root)).toBe(true);
    expect(a.movedTo).toEqual([host.current]);
    expect(b.movedTo).toEqual([host.current]);
    expect(host.current).not.toBe(engine);
    a.release();
    b.release();
    await host.close();
  });

  it("waits for users to let go of a replaced engine before closing, and never closes the caller's", async () => {
    const host = new EngineHost({ engine });
    const user = holdingUser();
    host.register(user.user);
    await host.trust();
    let closed = false;
    const closing = host.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(closed).toBe(false);
    user.release();
    await closing;
    // The caller's engine still works: it opens a session.
    const session = await engine.openSession();
    await session.close();
  });

  it("pins the project's plugins when trusting, so they load in the new engine", async () => {
    const dir = path.join(root, ".lathe", "tools", "greet");
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "tool.yaml"),
      "name: greet\nversion: 1.0.0\ndescription: Greet.\ninput_schema:\n  type: object\n  properties: {}\nreadOnly: true\ngated: false\n",
    );
    await writeFile(path.join(dir, "index.js"), 'export async function execute() { return "hi"; }\n');
    const host = new EngineHost({ engine, watchIntervalMs: 0 });
    expect(host.current.registry.get("greet")).toBeUndefined();
    await host.trust();
    expect(host.current.registry.get("greet")?.origin).toEqual({
      layer: "project",
      kind: "plugin",
      name: "greet",
    });
    expect(Object.keys(new TrustStore(latheHome).pins(root))).toEqual(["plugin:greet"]);
    await host.close();
  });

  it("reloads on request: users move to a new engine that reads the changed user settings", async () => {
    const host = new EngineHost({ engine, watchIntervalMs: 0 });
    const user = holdingUser();
    host.register(user.user);
    expect(host.current.policy.mode).toBeUndefined();
    await writeFile(
      path.join(latheHome, "settings.json"),
      JSON.stringify({ approvals: { mode: "allowlist" } }),
    );
    await host.reload();
    expect(user.movedTo).toEqual([host.current]);
    expect(host.current.policy.mode).toBe("allowlist");
    user.release();
    await host.close();
  });

  it("keeps the engine and says why when the changed settings cannot be read", async () => {
    const host = new EngineHost({ engine, watchIntervalMs: 0 });
    await writeFile(path.join(latheHome, "settings.json"), "{ nope");
    await expect(host.reload()).rejects.toThrow(/could not reload its settings: .*not valid JSON/);
    expect(host.current).toBe(engine);
    await host.close();
  });

  it("says the folder is trusted but not reloaded when the new engine cannot be created", async () => {
    const host = new EngineHost({
      engine,
      createEngine: () => Promise.reject(new Error("settings.json is malformed.")),
    });
    await expect(host.trust()).rejects.toThrow(
      /now trusted, but Lathe could not reload its settings: settings.json is malformed/,
    );
    expect(host.current).toBe(engine);
    await host.close();
  });
});
