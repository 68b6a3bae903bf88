import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentManifest } from "../src/main/engine/agent/agent-manifest.ts";
import { eventsOf, openAgentHarness, type AgentHarness } from "./support/agent-harness.ts";
import { scriptedModel } from "./support/scripted-model.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function harness(agent?: Partial<AgentManifest>): Promise<AgentHarness> {
  const h = await openAgentHarness(agent ? { agent } : {});
  cleanups.push(() => h.cleanup());
  return h;
}

async function addSkill(home: string, folder: string, name: string, description: string): Promise<void> {
  await mkdir(path.join(home, "skills", folder), { recursive: true });
  await writeFile(
    path.join(home, "skills", folder, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n---\nThe instructions of ${name}.\n`,
  );
}

function systemOf(call: LanguageModelV4CallOptions): string {
  return call.prompt
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");
}

/** Run one turn and return the system prompt the model was sent. */
async function systemPromptOfRun(h: AgentHarness): Promise<string> {
  let system = "";
  const model = scriptedModel([
    (call) => {
      system = systemOf(call);
      return { text: "ok" };
    },
  ]);
  const { result } = await h.run("hello", model);
  expect(result.status).toBe("completed");
  return system;
}

describe("skills are listed to the model in the system prompt", () => {
  it("lists each skill's name and description, as the skill tool's description promises", async () => {
    const h = await harness();
    await addSkill(h.home, "pdf", "pdf", "Read and fill PDF forms.");
    await addSkill(h.home, "release", "release-notes", "Write release notes from git history.");
    h.engine.skills.refresh();

    const system = await systemPromptOfRun(h);
    expect(system).toContain("- pdf: Read and fill PDF forms.");
    expect(system).toContain("- release-notes: Write release notes from git history.");
    expect(system).toMatch(/load it with the skill tool/);
  });

  it("sees a skill installed after the engine started, from the next run on", async () => {
    const h = await harness();
    expect(await systemPromptOfRun(h)).not.toContain("Skills (");
    await addSkill(h.home, "late", "late", "Added while the app was open.");
    expect(await systemPromptOfRun(h)).toContain("- late: Added while the app was open.");
  });

  it("lists nothing to an agent that may not use the skill tool", async () => {
    const h = await harness({ tools: { allow: ["*"], deny: ["skill"] } });
    await addSkill(h.home, "pdf", "pdf", "Read and fill PDF forms.");
    expect(await systemPromptOfRun(h)).not.toContain("pdf");
  });
});

describe("a skill that cannot be loaded", () => {
  it.each([
    { case: "bad YAML", text: "---\nname: [bad\n---\nx\n", says: "not valid YAML" },
    { case: "no front matter", text: "Just some text.\n", says: "has no front matter" },
    { case: "no description", text: "---\nname: nodesc\n---\nx\n", says: 'add "description:"' },
    { case: "binary", text: "\u0000\u0001\u0002PNG\u0000", says: "has no front matter" },
  ])("is left out of the model's list and named in the engine's notices: $case", async ({ text, says }) => {
    const h = await harness();
    await addSkill(h.home, "good", "good", "Works.");
    await mkdir(path.join(h.home, "skills", "broken"));
    await writeFile(path.join(h.home, "skills", "broken", "SKILL.md"), text);
    const engine = await h.reopen();

    const skipped = engine.notices.filter((n) => n.startsWith("A skill was skipped:"));
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toContain(path.join(h.home, "skills", "broken", "SKILL.md"));
    expect(skipped[0]).toContain(says);
    const system = await systemPromptOfRun(h);
    expect(system).toContain("- good: Works.");
    expect(system).not.toContain("broken");
  });
});

describe("a skill broken while the app is open", () => {
  it("is named in the next run's notices, once, and left out of the model's list", async () => {
    const h = await harness();
    await addSkill(h.home, "notes", "notes", "Take notes.");
    h.engine.skills.refresh();
    const first = await h.run("hello", scriptedModel([{ text: "ok" }]));
    expect(eventsOf(first.events, "notice").filter((e) => e.message.includes("skill"))).toEqual([]);

    // The user edits the skill and breaks its front matter between two runs.
    await writeFile(path.join(h.home, "skills", "notes", "SKILL.md"), "---\nname: [notes\n---\nx\n");
    let system = "";
    const second = await h.run(
      "hello",
      scriptedModel([
        (call) => {
          system = systemOf(call);
          return { text: "ok" };
        },
      ]),
    );
    expect(system).not.toContain("notes");
    const said = eventsOf(second.events, "notice").map((e) => e.message);
    expect(said).toEqual([
      expect.stringMatching(/^A skill was skipped: .*notes\/SKILL\.md: the front matter is not valid YAML/),
    ]);
    // Said once: the next run, with the skill still broken, does not repeat it.
    const third = await h.run("hello", scriptedModel([{ text: "ok" }]));
    expect(eventsOf(third.events, "notice")).toEqual([]);
  });
});
