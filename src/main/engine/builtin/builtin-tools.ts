import type { Settings } from "../config/lathe-settings.ts";
import type { SkillCatalog } from "../skills/skill-catalog.ts";
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
import { toolSearchTool } from "./tool-search.ts";
import { webFetchTool } from "./web-fetch.ts";
import { webSearchTool } from "./web-search.ts";
import { writeTool } from "./write.ts";

/**
 * What the built-ins that read settings or the skills are made from. What belongs to a session
 * (its asker, task host, tool exposure, todo list) they reach through `runtime.session`.
 */
interface BuiltinDeps {
  web: Settings["web"];
  /** The user's settings file, named in messages that say how to change a setting. */
  settingsFile: string;
  skills: SkillCatalog;
}

/**
 * The locked tools this build ships, in the builtin layer. `task` is registered here but works
 * only inside an agent run, which attaches itself to the session (`runtime.session.tasks`): this
 * file stays free of the agent module.
 */
export function builtinTools(deps: BuiltinDeps): AnyTool[] {
  return [
    readTool,
    writeTool,
    editTool,
    globTool,
    grepTool,
    bashTool,
    todoTool(),
    questionTool(),
    skillTool(deps.skills),
    taskTool(),
    webFetchTool(deps.web.fetch, { settingsFile: deps.settingsFile }),
    webSearchTool(deps.web.search),
    toolSearchTool(),
  ];
}
