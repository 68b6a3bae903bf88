import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Engine } from "../../src/main/engine/engine.ts";
import type { ApprovalMode } from "../../src/main/engine/config/lathe-settings.ts";
import type { Approver } from "../../src/main/engine/policy/approval-request.ts";
import type { PermissionRule } from "../../src/main/engine/policy/permission-rule.ts";
import type { Session } from "../../src/main/engine/session/session.ts";
import type { AnyTool } from "../../src/main/engine/tools/contract.ts";

/**
 * Test support (not shipped behaviour): a real engine on a temp root with its own LATHE_HOME,
 * the given tools registered in the builtin layer (the lead wires the web tools in for real),
 * and one session in yolo mode unless told otherwise.
 */
export interface WebTestEngine {
  engine: Engine;
  session: Session;
  latheHome: string;
  cleanup(): Promise<void>;
}

export async function openWebTestEngine(
  tools: AnyTool[],
  options: { manifestRules?: PermissionRule[]; mode?: ApprovalMode; approver?: Approver } = {},
): Promise<WebTestEngine> {
  const base = await mkdtemp(path.join(os.tmpdir(), "lathe-web-tools-"));
  const root = path.join(base, "ws");
  const latheHome = path.join(base, "home");
  await mkdir(root);
  const engine = await Engine.create({
    root,
    latheHome,
    ...(options.manifestRules ? { manifestRules: options.manifestRules } : {}),
  });
  // The engine ships these tools with the user's settings; the tests' copies carry their own.
  for (const tool of tools) {
    engine.registry.unregister("builtin", (_origin, id) => id === tool.id);
    engine.registry.register(tool, { layer: "builtin", kind: "builtin" });
  }
  const session = await engine.openSession({
    mode: options.mode ?? "yolo",
    ...(options.approver ? { approver: options.approver } : {}),
  });
  return {
    engine,
    session,
    latheHome,
    async cleanup() {
      await engine.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}
