import type { ToolInfo } from "../../shared/api-contract.ts";
import type { Envelope } from "../engine/index.ts";
import type { ApiHandlers } from "./api-router.ts";

/** What the `tools.*` channels run against: a UI connection's current engine and session. */
interface ToolTarget {
  listTools(): Promise<ToolInfo[]> | ToolInfo[];
  call(toolId: string, args: unknown): Promise<Envelope>;
  /** Stop the calls `call` started that are still running; how many there were. */
  stop(): { stopped: number };
}

/**
 * The `tools.*` channels. Every tool is offered, mutating ones too: the engine's policy decides
 * each call, and anything that needs a person goes to the approval prompt of the window (or
 * WebSocket) that made the call.
 */
export function createToolHandlers(
  target: ToolTarget,
): Pick<ApiHandlers, "tools.list" | "tools.call" | "tools.stop"> {
  return {
    "tools.list": () => target.listTools(),
    "tools.call": ({ toolId, args }) => target.call(toolId, args),
    "tools.stop": () => target.stop(),
  };
}
