import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import { afterEach, beforeEach } from "vitest";
import path from "node:path";
import { Engine, type EngineOptions } from "../../src/main/engine/engine.ts";
import type { Session } from "../../src/main/engine/session/session.ts";
import type { Envelope } from "../../src/main/engine/tools/envelope.ts";
import type { CheckpointLimits } from "../../src/main/engine/checkpoints/checkpoint-limits.ts";

/**
 * Test support (not shipped behaviour): a real engine on a temp workspace with its own
 * `LATHE_HOME` and a persistent session in yolo mode (checkpoints are kept for persistent
 * sessions only), plus helpers to arrange and inspect real files.
 */
export interface CheckpointWorkspace {
  root: string;
  home: string;
  engine: Engine;
  session: Session;
  abs(relative: string): string;
  put(relative: string, content: string | Uint8Array): Promise<void>;
  /** The file's text, or undefined when it does not exist. */
  text(relative: string): Promise<string | undefined>;
  exists(relative: string): Promise<boolean>;
  /** Call a tool and fail unless the envelope is an output. */
  ok(toolId: string, args: unknown): Promise<Envelope>;
  /** Files in the blob store. */
  blobFiles(): Promise<string[]>;
  /** The id of the session's newest checkpoint. */
  newest(): number;
  cleanup(): Promise<void>;
}

export async function openCheckpointWorkspace(
  options: { sessionId?: string; limits?: Partial<CheckpointLimits>; engine?: Partial<EngineOptions> } = {},
): Promise<CheckpointWorkspace> {
  const base = await mkdtemp(path.join(os.tmpdir(), "lathe-checkpoints-"));
  const root = path.join(base, "ws");
  const home = path.join(base, "home");
  await mkdir(root);
  const engine = await Engine.create({
    root,
    latheHome: home,
    extensions: false,
    checkpoints: { gcGraceMs: 0, ...options.limits },
    ...options.engine,
  });
  const session = await engine.openSession({ id: options.sessionId ?? "s1", mode: "yolo" });
  const abs = (relative: string): string => path.join(engine.root, relative);
  return {
    root: engine.root,
    home,
    engine,
    session,
    abs,
    async put(relative, content) {
      await mkdir(path.dirname(abs(relative)), { recursive: true });
      await writeFile(abs(relative), content);
    },
    async text(relative) {
      try {
        return await readFile(abs(relative), "utf8");
      } catch {
        return undefined;
      }
    },
    async exists(relative) {
      return stat(abs(relative)).then(
        () => true,
        () => false,
      );
    },
    async ok(toolId, args) {
      const envelope = await session.call(toolId, args);
      if (envelope.type !== "output") throw new Error(`${toolId} failed: ${envelope.error_text}`);
      return envelope;
    },
    newest() {
      const list = engine.checkpoints.list(session.id);
      return list[list.length - 1]?.id as number;
    },
    async blobFiles() {
      const dir = path.join(engine.latheHome, "checkpoints", "blobs");
      try {
        return (await readdir(dir, { recursive: true, withFileTypes: true }))
          .filter((d) => d.isFile())
          .map((d) => path.join(d.parentPath, d.name));
      } catch {
        return [];
      }
    },
    async cleanup() {
      await engine.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh checkpoint workspace for every test of the file: opened before each, handed to `use`,
 * cleaned up after each.
 */
export function useCheckpointWorkspace(use: (opened: CheckpointWorkspace) => void): void {
  let current: CheckpointWorkspace | undefined;
  beforeEach(async () => {
    current = await openCheckpointWorkspace();
    use(current);
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
}
