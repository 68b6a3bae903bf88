import type { Engine, Session } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";
import type { ApiHandlers } from "./api-router.ts";

export interface ToolHandlerOptions {
  engine: Engine;
  session: Session;
}

/**
 * The `tools.*` channels over one engine and one session. Until approvals exist, the app runs
 * read-only tools only: a mutating tool is refused here, whatever the renderer asks.
 */
export function createToolHandlers({ engine, session }: ToolHandlerOptions): ApiHandlers {
  return {
    "tools.list": () => engine.listTools(),
    "tools.call": ({ toolId, args }) => {
      const tool = engine.listTools().find((t) => t.id === toolId);
      if (tool && !tool.readOnly) {
        throw new ApiError(
          `${toolId} changes files, and the app runs only read-only tools until approvals exist. Run it with \`lathe call ${toolId}\` instead.`,
        );
      }
      return session.call(toolId, args);
    },
  };
}
