import type { SkillInfo } from "./skill-catalog.ts";

/**
 * The most characters the skill index adds to every system prompt (about 2,000 tokens): each
 * skill's description may be 1,024 characters, and a folder of many skills must not crowd out the
 * conversation. Skills past it are named without their descriptions, then only counted.
 */
export const SKILL_INDEX_CHARS = 8_000;

const HEADING =
  "Skills (instructions for kinds of tasks): when a task matches one, load it with the skill tool before you start, and follow it.";

/**
 * The system prompt's section listing the skills a run can load, `- <name>: <description>` by
 * name, within `maxChars`; undefined when there are none. Skills that do not fit with their
 * description are listed by name only, and those that do not fit at all are counted (the skill
 * tool names every skill when asked for one that does not exist).
 */
export function skillIndex(skills: readonly SkillInfo[], maxChars = SKILL_INDEX_CHARS): string | undefined {
  if (skills.length === 0) return undefined;
  const described = skills.map((s) => `- ${s.name}: ${s.description}`);
  const whole = [HEADING, ...described].join("\n");
  if (whole.length <= maxChars) return whole;
  // Not all fit: room is kept for the line that counts those left out (at its longest).
  const room = maxChars - countLine(skills.length).length - 1;
  const lines = [HEADING];
  let used = HEADING.length;
  let next = 0;
  for (; next < skills.length; next++) {
    const line = described[next] as string;
    if (used + 1 + line.length > room) break;
    lines.push(line);
    used += 1 + line.length;
  }
  const names: string[] = [];
  let left = room - used - 1 - NAMES_PREFIX.length - 1;
  for (; next < skills.length; next++) {
    const name = (skills[next] as SkillInfo).name;
    const cost = name.length + (names.length > 0 ? 2 : 0);
    if (cost > left) break;
    names.push(name);
    left -= cost;
  }
  if (names.length > 0) lines.push(`${NAMES_PREFIX}${names.join(", ")}.`);
  if (next < skills.length) lines.push(countLine(skills.length - next));
  return lines.join("\n");
}

const NAMES_PREFIX = "More skills (load one to read what it is for): ";

function countLine(left: number): string {
  return `${left} more skill${left === 1 ? " is" : "s are"} not listed here; call skill with any name to get the names of all of them.`;
}
