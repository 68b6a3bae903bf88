import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LanguageModel } from "ai";
import type { AgentManifest } from "../../src/main/engine/agent/agent-manifest.ts";
import { defaultAgent } from "../../src/main/engine/agent/default-agent.ts";
import type { AgentRunResult, RunAgentOptions } from "../../src/main/engine/agent/agent-run.ts";
import { runAgent } from "../../src/main/engine/agent/run-agent.ts";
import type { RunEvent } from "../../src/main/engine/agent/run-events.ts";
import { Engine } from "../../src/main/engine/engine.ts";
import type { AnyTool } from "../../src/main/engine/tools/contract.ts";
import { LOCKED_TOOL_IDS } from "../../src/main/engine/tools/locked-tools.ts";

/**
 * Test support: a real engine on a temp workspace with its own LATHE_HOME, an agent (the
 * built-in default with overrides), extra tools in the project layer (a stand-in for a locked
 * built-in replaces it in the builtin layer), and a `run` that records every event.
 */
export interface AgentHarness {
  root: string;
  home: string;
  engine: Engine;
  agent: AgentManifest;
  put(relative: string, content: string): Promise<void>;
  text(relative: string): Promise<string | undefined>;
  run(
    prompt: string,
    model: LanguageModel,
    options?: Partial<Omit<RunAgentOptions, "engine" | "agent" | "model" | "prompt">>,
  ): Promise<{ result: AgentRunResult; events: RunEvent[] }>;
  /** A second engine on the same LATHE_HOME and folder, as a new process would open it. */
  reopen(): Promise<Engine>;
  cleanup(): Promise<void>;
}

export async function openAgentHarness(
  options: { agent?: Partial<AgentManifest>; tools?: AnyTool[]; home?: string } = {},
): Promise<AgentHarness> {
  const base = await mkdtemp(path.join(os.tmpdir(), "lathe-agent-"));
  const root = path.join(base, "ws");
  const home = options.home ?? path.join(base, "home");
  await mkdir(root);
  const agent: AgentManifest = { ...defaultAgent(), ...options.agent };
  const create = async (): Promise<Engine> => {
    const engine = await Engine.create({
      root,
      latheHome: home,
      manifestRules: agent.permissions,
      agent: agent.id,
    });
    for (const tool of options.tools ?? []) {
      if (LOCKED_TOOL_IDS.has(tool.id)) {
        // An instrumented stand-in for a locked built-in takes the built-in's place (no plugin may).
        engine.registry.unregister("builtin", (_origin, id) => id === tool.id);
        engine.registry.register(tool, { layer: "builtin", kind: "builtin" });
      } else {
        engine.registry.register(tool, { layer: "project", kind: "plugin", name: "test" });
      }
    }
    return engine;
  };
  const engine = await create();
  const engines = [engine];
  return {
    root: engine.root,
    home,
    engine,
    agent,
    async put(relative, content) {
      const file = path.join(engine.root, relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
    },
    async text(relative) {
      try {
        return await readFile(path.join(engine.root, relative), "utf8");
      } catch {
        return undefined;
      }
    },
    async run(prompt, model, runOptions = {}) {
      const events: RunEvent[] = [];
      const result = await runAgent({
        engine,
        agent,
        model: { spec: { provider: "scripted", model: "scripted-model" }, model },
        prompt,
        flushIntervalMs: 5,
        // Room for every tool's definition: only tools that ask to be deferred are.
        contextTokens: 1_000_000,
        ...runOptions,
        onEvent: (e) => {
          events.push(e);
          runOptions.onEvent?.(e);
        },
      });
      return { result, events };
    },
    async reopen() {
      const again = await create();
      engines.push(again);
      return again;
    },
    async cleanup() {
      for (const e of engines) await e.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** Events of one type, typed. */
export function eventsOf<T extends RunEvent["type"]>(
  events: readonly RunEvent[],
  type: T,
): Array<Extract<RunEvent, { type: T }>> {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}
