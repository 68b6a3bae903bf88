import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { defineBuiltin } from "../../src/main/engine/builtin/define-builtin.ts";
import { Engine } from "../../src/main/engine/index.ts";

/** A no-op read-only tool: what a benchmark calls to measure everything around a tool. */
export const noopTool = defineBuiltin({
  id: "noop",
  description: "Does nothing.",
  schema: z.strictObject({ value: z.number().optional() }),
  requires: {},
  readOnly: true,
  kind: "other",
  execute: async (args) => args,
});

/** An engine on a fresh temp folder with `noop` registered; the caller removes `dir` when done. */
export async function noopEngine(name: string): Promise<{ dir: string; engine: Engine }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `lathe-bench-${name}-`));
  const engine = await Engine.create({ root: dir, latheHome: path.join(dir, ".lathe-home") });
  engine.registry.register(noopTool, { layer: "project", kind: "plugin", name: "bench" });
  return { dir, engine };
}
