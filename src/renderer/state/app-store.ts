import { createStore, type StoreApi } from "zustand/vanilla";
import type { Envelope, LatheApi, ToolInfo } from "../../shared/api-contract.ts";
import { argumentsTemplate } from "./arguments-template.ts";

/** The answer to the last run: the envelope, or why the call never reached the tool. */
export type RunResult =
  | { toolId: string; status: "envelope"; envelope: Envelope }
  | { toolId: string; status: "failed"; message: string };

export interface AppState {
  tools: ToolInfo[];
  toolsStatus: "loading" | "ready" | "failed";
  toolsError: string | undefined;
  selectedId: string | undefined;
  /** The JSON text a person typed, per tool, so switching tools keeps it. */
  argsText: Record<string, string>;
  running: boolean;
  result: RunResult | undefined;
  loadTools(): Promise<void>;
  select(toolId: string): void;
  setArgs(toolId: string, text: string): void;
  run(): Promise<void>;
}

export type AppStore = StoreApi<AppState>;

/** Parse the argument text: an object, or a message that says what to fix. */
export function parseArguments(text: string): { args: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    return { error: `Not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: "The arguments must be one JSON object, like {}." };
  }
  return { args: value as Record<string, unknown> };
}

export function createAppStore(api: LatheApi): AppStore {
  return createStore<AppState>()((set, get) => ({
    tools: [],
    toolsStatus: "loading",
    toolsError: undefined,
    selectedId: undefined,
    argsText: {},
    running: false,
    result: undefined,

    async loadTools() {
      set({ toolsStatus: "loading", toolsError: undefined });
      const answer = await api.tools.list();
      if (!answer.ok) {
        set({ toolsStatus: "failed", toolsError: answer.error.message });
        return;
      }
      const tools = [...answer.data].sort((a, b) => a.id.localeCompare(b.id));
      const argsText: Record<string, string> = {};
      for (const tool of tools)
        argsText[tool.id] = get().argsText[tool.id] ?? argumentsTemplate(tool.parameters);
      const selected = get().selectedId;
      const firstReadOnly = tools.find((t) => t.readOnly)?.id;
      set({
        tools,
        argsText,
        toolsStatus: "ready",
        selectedId: selected && tools.some((t) => t.id === selected) ? selected : firstReadOnly,
      });
    },

    select(toolId) {
      set({ selectedId: toolId });
    },

    setArgs(toolId, text) {
      set({ argsText: { ...get().argsText, [toolId]: text } });
    },

    async run() {
      const { selectedId, tools, argsText, running } = get();
      const tool = tools.find((t) => t.id === selectedId);
      if (!tool || !tool.readOnly || running) return;
      const parsed = parseArguments(argsText[tool.id] ?? "");
      if ("error" in parsed) return;
      set({ running: true });
      const answer = await api.tools.call({ toolId: tool.id, args: parsed.args });
      set({
        running: false,
        result: answer.ok
          ? { toolId: tool.id, status: "envelope", envelope: answer.data }
          : { toolId: tool.id, status: "failed", message: answer.error.message },
      });
    },
  }));
}
