import { createStore, type StoreApi } from "zustand/vanilla";
import type {
  ApprovalAnswer,
  Envelope,
  LatheApi,
  ProjectStatus,
  ToolInfo,
} from "../../shared/api-contract.ts";
import type { ApprovalRequest } from "../../shared/push-events.ts";
import type { TrustReview } from "../../shared/trust-review-schema.ts";
import { finishActivity, startActivity, type ActivityEntry } from "./activity.ts";
import { enqueueApproval, removeApproval } from "./approval-queue.ts";
import { argumentsTemplate } from "./arguments-template.ts";

/** The answer to the last run: the envelope, or why the call never reached the tool. */
export type RunResult =
  | { toolId: string; status: "envelope"; envelope: Envelope }
  | { toolId: string; status: "failed"; message: string };

/** The app's views: running tools, the chat, the extensions panels, and settings. */
export type AppView = "workbench" | "chat" | "tools" | "plugins" | "mcp" | "settings";

export interface AppState {
  view: AppView;
  tools: ToolInfo[];
  toolsStatus: "loading" | "ready" | "failed";
  toolsError: string | undefined;
  selectedId: string | undefined;
  /** The JSON text a person typed, per tool, so switching tools keeps it. */
  argsText: Record<string, string>;
  running: boolean;
  result: RunResult | undefined;
  /** Prompts waiting for the person, in the order they came; the dialog shows the first. */
  approvals: ApprovalRequest[];
  answering: boolean;
  /** Why the last answer could not be delivered. */
  approvalError: string | undefined;
  /** Tool calls of this window's session, newest first. */
  activity: ActivityEntry[];
  project: ProjectStatus | undefined;
  /** What trusting the folder would turn on (its plugins and MCP servers), while it is untrusted. */
  trustReview: TrustReview | undefined;
  projectError: string | undefined;
  trusting: boolean;
  /** The person chose "Not now" on the trust banner. */
  trustDismissed: boolean;
  loadTools(): Promise<void>;
  /** Fetch the tool list again without showing "Loading" (after plugins or servers changed). */
  refreshTools(): Promise<void>;
  setView(view: AppView): void;
  select(toolId: string): void;
  setArgs(toolId: string, text: string): void;
  run(): Promise<void>;
  /** Answer the prompt on screen. */
  respond(answer: ApprovalAnswer): Promise<void>;
  loadProject(): Promise<void>;
  trustProject(): Promise<void>;
  dismissTrust(): void;
  /** Listen to the host's pushes; returns the function that stops listening. */
  connect(): () => void;
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
    view: "workbench",
    tools: [],
    toolsStatus: "loading",
    toolsError: undefined,
    selectedId: undefined,
    argsText: {},
    running: false,
    result: undefined,
    approvals: [],
    answering: false,
    approvalError: undefined,
    activity: [],
    project: undefined,
    projectError: undefined,
    trustReview: undefined,
    trusting: false,
    trustDismissed: false,

    async loadTools() {
      set({ toolsStatus: "loading", toolsError: undefined });
      await get().refreshTools();
    },

    async refreshTools() {
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
      const firstReadOnly = tools.find((t) => t.readOnly)?.id ?? tools[0]?.id;
      set({
        tools,
        argsText,
        toolsStatus: "ready",
        toolsError: undefined,
        selectedId: selected && tools.some((t) => t.id === selected) ? selected : firstReadOnly,
      });
    },

    setView(view) {
      set({ view });
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
      if (!tool || running) return;
      const parsed = parseArguments(argsText[tool.id] ?? "");
      if ("error" in parsed) return;
      set({ running: true });
      // A mutating call may wait here for the person's answer in the approval dialog.
      const answer = await api.tools.call({ toolId: tool.id, args: parsed.args });
      set({
        running: false,
        result: answer.ok
          ? { toolId: tool.id, status: "envelope", envelope: answer.data }
          : { toolId: tool.id, status: "failed", message: answer.error.message },
      });
    },

    async respond(answer) {
      const head = get().approvals[0];
      if (!head || get().answering) return;
      set({ answering: true, approvalError: undefined });
      const result = await api.approvals.respond({ id: head.id, answer });
      // Answered or not, this prompt is over: the host rejects whatever it cannot deliver.
      set((state) => ({
        answering: false,
        approvals: removeApproval(state.approvals, head.id),
        approvalError: result.ok
          ? undefined
          : `Your answer to ${head.toolId} did not reach Lathe: ${result.error.message}`,
      }));
    },

    async loadProject() {
      const answer = await api.project.status();
      if (!answer.ok) {
        set({ projectError: answer.error.message });
        return;
      }
      set({ project: answer.data, projectError: undefined });
      if (answer.data.trusted) return;
      const review = await api.project.review();
      if (review.ok) set({ trustReview: review.data });
      else
        set({ projectError: `Lathe could not list what this folder would turn on: ${review.error.message}` });
    },

    async trustProject() {
      if (get().trusting) return;
      set({ trusting: true, projectError: undefined });
      const answer = await api.project.trust();
      if (answer.ok) set({ trusting: false, project: answer.data });
      else set({ trusting: false, projectError: answer.error.message });
    },

    dismissTrust() {
      set({ trustDismissed: true });
    },

    connect() {
      const stops = [
        api.on("approval.requested", (request) =>
          set((state) => ({ approvals: enqueueApproval(state.approvals, request) })),
        ),
        api.on("approval.settled", ({ id }) =>
          set((state) => ({ approvals: removeApproval(state.approvals, id) })),
        ),
        api.on("tool.started", (event) =>
          set((state) => ({ activity: startActivity(state.activity, event) })),
        ),
        api.on("tool.finished", (event) =>
          set((state) => ({ activity: finishActivity(state.activity, event) })),
        ),
        api.on("project.status", (project) => set({ project })),
      ];
      return () => {
        for (const stop of stops) stop();
      };
    },
  }));
}
