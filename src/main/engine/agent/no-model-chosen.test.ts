import { describe, expect, it } from "vitest";
import { defaultAgent } from "./default-agent.ts";
import { noModelChosen } from "./no-model-chosen.ts";

describe("noModelChosen", () => {
  const how = "pass --model PROVIDER:MODEL";
  it("offers no front matter to edit for the built-in agent", () => {
    expect(noModelChosen(how, defaultAgent(), "/home/u/.lathe")).toBe(
      'No model chosen: pass --model PROVIDER:MODEL, or set "defaultModel" in /home/u/.lathe/settings.json.',
    );
  });

  it("names the agent's file when the agent is one", () => {
    const agent = { ...defaultAgent(), id: "reviewer", source: "/p/.lathe/agents/reviewer.md" };
    expect(noModelChosen(how, agent, "/home/u/.lathe")).toBe(
      'No model chosen: pass --model PROVIDER:MODEL, add "model:" to the front matter of /p/.lathe/agents/reviewer.md, or set "defaultModel" in /home/u/.lathe/settings.json.',
    );
  });
});
