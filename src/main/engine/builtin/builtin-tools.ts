import type { Settings } from "../policy/lathe-settings.ts";
import type { SkillCatalog } from "../skills/skill-catalog.ts";
import type { TodoStore } from "../store/todo-store.ts";
import type { AnyTool } from "../tools/contract.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { questionTool } from "./question.ts";
import { readTool } from "./read.ts";
import { skillTool } from "./skill.ts";
import { taskTool } from "./task.ts";
import { todoTool } from "./todo.ts";
import { webFetchTool } from "./web-fetch.ts";
import { webSearchTool } from "./web-search.ts";
import { writeTool } from "./write.ts";

/** What the built-ins that hold state or read settings are made from. */
export interface BuiltinDeps {
  web: Settings["web"];
  /** The user's settings file, named in messages that say how to change a setting. */
  settingsFile: string;
  todos: TodoStore;
  skills: SkillCatalog;
}

/**
 * The locked tools this build ships, in the builtin layer (`tool_search` comes with the registry
 * it searches). `task` is registered here but works only inside an agent run, which attaches
 * itself to the session (session/task-host.ts): this file stays free of the agent module.
 */
export function builtinTools(deps: BuiltinDeps): AnyTool[] {
  return [
    readTool,
    writeTool,
    editTool,
    globTool,
    grepTool,
    bashTool,
    todoTool(deps.todos),
    questionTool(),
    skillTool(deps.skills),
    taskTool(),
    webFetchTool(deps.web.fetch, { settingsFile: deps.settingsFile }),
    webSearchTool(deps.web.search),
  ];
}
