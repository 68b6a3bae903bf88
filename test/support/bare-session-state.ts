import { SessionState } from "../../src/main/engine/session/session-state.ts";
import type { TodoItem } from "../../src/main/engine/tools/todo-list.ts";
import { ToolExposure } from "../../src/main/engine/tools/tool-exposure.ts";
import type { ToolRegistry } from "../../src/main/engine/tools/tool-registry.ts";

/**
 * A session's state for pipeline tests without an engine: no asker (headless), its exposure
 * over `registry`, and a todo list held in memory.
 */
export function bareSessionState(id: string, dir: string, registry: ToolRegistry): SessionState {
  let todos: TodoItem[] = [];
  return new SessionState({
    id,
    dir,
    exposure: new ToolExposure(registry),
    todos: {
      get: () => todos.map((t) => ({ ...t })),
      replace: (next) => void (todos = next.map((t) => ({ ...t }))),
    },
  });
}
