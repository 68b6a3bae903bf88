import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Engine } from "../../src/main/engine/engine.ts";
import type { Session } from "../../src/main/engine/session/session.ts";

/**
 * Test support (not shipped behaviour): a real engine on a fresh temp workspace with its own
 * `LATHE_HOME`, one open session, and helpers to arrange and inspect files. The session runs in
 * yolo mode: these tests are about what the tools do; the policy suites cover approvals.
 */
export interface TestWorkspace {
  /** Canonical path of the workspace root. */
  root: string;
  latheHome: string;
  engine: Engine;
  session: Session;
  /** Absolute path of a file under the root. */
  abs(relative: string): string;
  put(relative: string, content: string | Uint8Array): Promise<string>;
  bytes(relative: string): Promise<Buffer>;
  text(relative: string): Promise<string>;
  /** Every entry name below the root, recursively, sorted. */
  tree(): Promise<string[]>;
  cleanup(): Promise<void>;
}

export async function openTestWorkspace(): Promise<TestWorkspace> {
  const base = await mkdtemp(path.join(os.tmpdir(), "lathe-file-tools-"));
  const root = path.join(base, "ws");
  const latheHome = path.join(base, "home");
  await mkdir(root);
  // The bare engine: bundled plugins and MCP servers are not what these tests are about.
  const engine = await Engine.create({ root, latheHome, extensions: false });
  const session = await engine.openSession({ mode: "yolo" });
  const abs = (relative: string): string => path.join(engine.root, relative);
  return {
    root: engine.root,
    latheHome,
    engine,
    session,
    abs,
    async put(relative, content) {
      const file = abs(relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      return file;
    },
    bytes: (relative) => readFile(abs(relative)),
    text: (relative) => readFile(abs(relative), "utf8"),
    async tree() {
      return (await readdir(engine.root, { recursive: true })).map((p) => p.split(path.sep).join("/")).sort();
    },
    async cleanup() {
      await engine.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}
