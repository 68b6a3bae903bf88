import { z } from "zod";
import { LatheError } from "../errors/lathe-error.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { MAX_SKILL_FILE_BYTES, type SkillCatalog, type SkillInfo } from "../skills/skill-catalog.ts";
import { parseSkillFile } from "../skills/skill-file.ts";
import type { ToolDefinition } from "../tools/contract.ts";
import { OUTPUT_LIMITS, truncateTextField } from "../tools/truncation.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { decodeText } from "./text-codec.ts";

const DESCRIPTION = `Load a skill: instructions for a kind of task. The system prompt lists the skills; when a task matches one, load it before you start and follow its instructions. Files they mention are relative to the folder of its SKILL.md (path).`;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    name: z.string().min(1).max(64).describe("Exactly as listed in the system prompt."),
  });

export interface SkillData {
  name: string;
  description: string;
  content: string;
  path: string;
}

function unknownSkill(name: string, catalog: SkillCatalog): ToolCallError {
  const names = catalog.skills().map((s) => s.name);
  return new ToolCallError(
    names.length > 0
      ? `There is no skill "${name}". Available skills: ${names.join(", ")}. Call skill with one of these names.`
      : `There is no skill "${name}": no skills are installed. Continue without one.`,
  );
}

/** The catalog's entry for a name; an unknown name looks at the folders once more (a skill added since). */
function find(name: string, catalog: SkillCatalog): SkillInfo {
  let skill = catalog.get(name);
  if (!skill) {
    catalog.refresh();
    skill = catalog.get(name);
  }
  if (!skill) throw unknownSkill(name, catalog);
  return skill;
}

/**
 * The skill tool over a catalog: it loads one discovered skill's instructions, read through the
 * capability surface (only the two skills folders), so the body is always the file as it is now.
 */
export function skillTool(
  catalog: SkillCatalog,
): ToolDefinition<z.output<ReturnType<typeof schema>>, SkillData> {
  return defineBuiltin({
    id: "skill",
    description: DESCRIPTION,
    schema,
    requires: { fs: { read: ["{user-data}/skills/**", "{workspace}/.lathe/skills/**"] } },
    readOnly: true,
    gated: false,
    kind: "read",
    timeoutMs: 10_000,
    deriveApprovalKey: (args) => `skill:${args.name}`,
    truncate: (data) => truncateTextField(data, "content", OUTPUT_LIMITS.readBytes),
    async execute(args, runtime): Promise<SkillData> {
      const skill = find(args.name, catalog);
      const target = await runtime.fs.resolve(skill.path, "read");
      const stats = await runtime.fs.stat(target);
      if (!stats) {
        throw new ToolCallError(
          `The skill "${skill.name}" was removed since it was listed (${target.display} is gone). Continue without it.`,
        );
      }
      // Read whole, so held to the size discovery allows: a file that grew since is not loaded into memory.
      if (stats.size > MAX_SKILL_FILE_BYTES) {
        throw new ToolCallError(
          `The skill "${skill.name}" is too large to load: ${target.display} has grown to ${stats.size} bytes since it was listed, over the ${MAX_SKILL_FILE_BYTES}-byte limit for a skill. Continue without it.`,
        );
      }
      let text: string;
      try {
        text = decodeText((await runtime.fs.readBytes(target)).bytes).text;
      } catch (err) {
        throw new ToolCallError(
          `The skill "${skill.name}" can no longer be read: ${(err as Error).message} Continue without it.`,
          "tool_call",
          { cause: err },
        );
      }
      let body: string;
      try {
        body = parseSkillFile(text, target.display).body;
      } catch (err) {
        if (!LatheError.isInstance(err)) throw err;
        throw new ToolCallError(
          `The skill "${skill.name}" is broken since it was listed: ${err.message} Continue without it.`,
        );
      }
      return { name: skill.name, description: skill.description, content: body, path: target.display };
    },
  });
}
