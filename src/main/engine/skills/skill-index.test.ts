import { describe, expect, it } from "vitest";
import type { SkillInfo } from "./skill-catalog.ts";
import { SKILL_INDEX_CHARS, skillIndex } from "./skill-index.ts";

function skill(name: string, description: string): SkillInfo {
  return { name, description, path: `/home/u/.lathe/skills/${name}/SKILL.md`, layer: "global" };
}

const many = (n: number, descriptionChars: number): SkillInfo[] =>
  Array.from({ length: n }, (_, i) =>
    skill(`skill-${String(i).padStart(4, "0")}`, "d".repeat(descriptionChars)),
  );

describe("skillIndex", () => {
  it("is absent when there are no skills (nothing is added to the prompt)", () => {
    expect(skillIndex([])).toBeUndefined();
  });

  it("lists every skill with its description when they fit", () => {
    const text = skillIndex([skill("a", "First."), skill("b", "Second.")]);
    expect(text?.split("\n").slice(1)).toEqual(["- a: First.", "- b: Second."]);
  });

  it.each([
    { case: "many short skills", skills: many(2_000, 20) },
    { case: "a few skills at the longest description", skills: many(40, 1024) },
    { case: "many skills at the longest description", skills: many(500, 1024) },
  ])("stays within its budget and accounts for every skill: $case", ({ skills }) => {
    const text = skillIndex(skills) ?? "";
    expect(text.length).toBeLessThanOrEqual(SKILL_INDEX_CHARS);
    const described = [...text.matchAll(/^- (skill-\d+): /gm)].map((m) => m[1]);
    const named = /^More skills[^:]*: (.*)\.$/m.exec(text)?.[1]?.split(", ") ?? [];
    const counted = Number(/^(\d+) more skills? (?:is|are) not listed/m.exec(text)?.[1] ?? 0);
    expect(described.length).toBeGreaterThan(0);
    expect(described.length + named.length + counted).toBe(skills.length);
    // In order, none twice: the first ones described, then named, then counted.
    expect([...described, ...named]).toEqual(
      skills.slice(0, described.length + named.length).map((s) => s.name),
    );
  });

  it("keeps the index within a small budget too", () => {
    const text = skillIndex(many(30, 100), 1_000) ?? "";
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text).toMatch(/more skills are not listed|More skills/);
  });
});
