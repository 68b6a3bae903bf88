import { createStore, type StoreApi } from "zustand/vanilla";
import type {
  ApprovalAnswer,
  Envelope,
  LatheApi,
  ProjectStatus,
  ToolInfo,
} from "../../shared/api-contract.ts";
import { errorMessage } from "../../shared/error-message.ts";
import type { RecentProject } from "../../shared/project-schemas.ts";
import type { TrustReview } from "../../shared/trust-review-schema.ts";
import type { ApprovalRequest, UnsandboxedMcpPrompt } from "../../shared/push-events.ts";
import { finishActivity, phaseActivity, startActivity, type ActivityEntry } from "./activity.ts";
import { enqueueApproval, removeApproval } from "./approval-queue.ts";
import { argumentsTemplate } from "./arguments-template.ts";

/** The last tool run of the Tools view: its envelope, or why the call never reached the tool. */
type ToolRunResult =
  | { toolId: string; status: "envelope"; envelope: Envelope }
  | { toolId: string; status: "failed"; message: string };

/** The app's views (the nav), each with its sections (tabs inside the view); see views.ts. */
export type AppView = "chat" | "tools" | "extensions" | "audit" | "settings";

/** The section each view opens on. */
const DEFAULT_SECTIONS: Record<AppView, string> = {
  chat: "chat",
  tools: "run",
  extensions: "plugins",
  audit: "calls",
  settings: "permissions",
};

/** Whether trusting the folder would turn anything on (rules, hooks, commands, plugins, servers, a mode). */
export function grantsSomething(review: TrustReview): boolean {
  const { rules, hooks, commands, approvals } = review.settings;
  return (
    rules.length + hooks.length + commands.length + review.agents.length + review.extensions.length > 0 ||
    approvals !== undefined
  );
}

/** Why the trust dialog shows itself: a folder that is not trusted and asks for something. */
function asksForTrust(review: TrustReview | undefined): boolean {
  if (!review || review.trusted) return false;
  return grantsSomething(review);
}

export interface AppState {
  view: AppView;
  /** The section shown in each view. */
  sections: Record<AppView, string>;
  /** The command palette (Ctrl+K) is open. */
  paletteOpen: boolean;
  /** The chat's prompt is to take the keyboard once it is on screen (after a palette jump). */
  promptFocusPending: boolean;
  /** The open-folder dialog is open. */
  projectDialogOpen: boolean;
  recentProjects: RecentProject[];
  openingProject: boolean;
  /** Why the last open-folder did not happen. */
  openError: string | undefined;
  /** What trusting the folder would turn on, for the trust dialog. */
  trustReview: TrustReview | undefined;
  trustDialogOpen: boolean;
  /** Folders whose trust dialog the person closed with "Not now" (it does not come back for them). */
  trustDeferred: string[];
  tools: ToolInfo[];
  toolsStatus: "loading" | "ready" | "failed";
  toolsError: string | undefined;
  selectedId: string | undefined;
  /** The JSON text a person typed, per tool, so switching tools keeps it. */
  argsText: Record<string, string>;
  running: boolean;
  /** The tool of the call that runs (while `running`): another tool may be on screen meanwhile. */
  runningToolId: string | undefined;
  /** Stop was pressed and the running call has not answered yet. */
  stopping: boolean;
  /** Why Stop did not reach Lathe. */
  stopError: string | undefined;
  result: ToolRunResult | undefined;
  /** Prompts waiting for the person, in the order they came; the dialog shows the first. */
  /** Prompts waiting, of every chat session and this page's own calls (the dialog shows the open chat's). */
  approvals: ApprovalRequest[];
  answering: boolean;
  /** Why the last answer could not be delivered. */
  approvalError: string | undefined;
  /** Tool calls of this window's session, newest first. */
  activity: ActivityEntry[];
  /** MCP servers waiting for the person's yes to start without the OS sandbox; the dialog shows the first. */
  mcpPrompts: UnsandboxedMcpPrompt[];
  /** Why the last answer to that dialog did not reach Lathe. */
  mcpPromptError: string | undefined;
  /** Project notices the person closed (by their text). */
  dismissedNotices: string[];
  /** The connection to the host closed (what to tell the person), until one opens again. */
  connectionLost: string | undefined;
  project: ProjectStatus | undefined;
  projectError: string | undefined;
  trusting: boolean;
  /** The person chose "Not now" on the trust banner. */
  trustDismissed: boolean;
  loadTools(): Promise<void>;
  /** Fetch the tool list again without showing "Loading" (after plugins or servers changed). */
  refreshTools(): Promise<void>;
  /** Show a view, on a given section or the one it showed last. */
  setView(view: AppView, section?: string): void;
  setPalette(open: boolean): void;
  /** Put the keyboard in the chat's prompt as soon as it shows (`false`: that was done). */
  setPromptFocusPending(pending: boolean): void;
  setProjectDialog(open: boolean): void;
  loadRecentProjects(): Promise<void>;
  /** Open another folder by path; resolves true once the host moved to it. */
  openProject(path: string): Promise<boolean>;
  /** Fetch what trusting the folder would turn on; show the trust dialog when that is something (or `force`). */
  loadTrustReview(force?: boolean): Promise<void>;
  closeTrustDialog(): void;
  select(toolId: string): void;
  setArgs(toolId: string, text: string): void;
  run(): Promise<void>;
  /** Stop the running call (it answers with its "aborted" envelope, which `run` shows). */
  stop(): Promise<void>;
  /** Answer the prompt `id` (the one the dialog shows). */
  respond(id: string, answer: ApprovalAnswer): Promise<void>;
  /** Prompts a chat's history says wait (a session opened while its run asks): queued once each. */
  approvalsWaiting(requests: readonly ApprovalRequest[]): void;
  loadProject(): Promise<void>;
  trustProject(): Promise<void>;
  dismissTrust(): void;
  /** Answer the unsandboxed MCP server dialog on screen. */
  answerMcpPrompt(approve: boolean): Promise<void>;
  dismissNotice(notice: string): void;
  /**
   * The connection to the host closed (a message) or opened again (undefined): prompts on screen
   * can no longer be answered, so they go.
   */
  setConnectionLost(message: string | undefined): void;
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
    return { error: `Not valid JSON: ${errorMessage(error)}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: "The arguments must be one JSON object, like {}." };
  }
  return { args: value as Record<string, unknown> };
}

interface AppStoreOptions {
  /** The host moved to another folder (an open, from this window or another). */
  onProjectChanged?(project: ProjectStatus): void;
}

export function createAppStore(api: LatheApi, options: AppStoreOptions = {}): AppStore {
  return createStore<AppState>()((set, get) => {
    /** A project status from the host: a new folder resets what belonged to the old one. */
    const applyProject = (project: ProjectStatus): void => {
      const previous = get().project;
      set({ project });
      if (previous?.root !== project.root) {
        // The workbench's last result and its activity were the old folder's calls.
        set({ trustDialogOpen: false, trustReview: undefined, result: undefined, activity: [] });
        void get().loadTrustReview();
        if (previous !== undefined) {
          options.onProjectChanged?.(project);
          void get().refreshTools();
        }
      }
    };
    return {
      view: "chat",
      sections: { ...DEFAULT_SECTIONS },
      paletteOpen: false,
      promptFocusPending: false,
      projectDialogOpen: false,
      recentProjects: [],
      openingProject: false,
      openError: undefined,
      trustReview: undefined,
      trustDialogOpen: false,
      trustDeferred: [],
      tools: [],
      toolsStatus: "loading",
      toolsError: undefined,
      selectedId: undefined,
      argsText: {},
      running: false,
      runningToolId: undefined,
      stopping: false,
      stopError: undefined,
      result: undefined,
      approvals: [],
      answering: false,
      approvalError: undefined,
      activity: [],
      mcpPrompts: [],
      mcpPromptError: undefined,
      dismissedNotices: [],
      connectionLost: undefined,
      project: undefined,
      projectError: undefined,
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

      setView(view, section) {
        set((state) => ({
          view,
          paletteOpen: false,
          sections: section !== undefined ? { ...state.sections, [view]: section } : state.sections,
        }));
      },

      setPalette(open) {
        set({ paletteOpen: open });
      },

      setPromptFocusPending(pending) {
        set({ promptFocusPending: pending });
      },

      setProjectDialog(open) {
        set({ projectDialogOpen: open, openError: undefined, paletteOpen: false });
        if (open) void get().loadRecentProjects();
      },

      async loadRecentProjects() {
        const answer = await api.projects.recent();
        if (answer.ok) set({ recentProjects: answer.data.projects });
      },

      async openProject(path) {
        if (get().openingProject) return false;
        set({ openingProject: true, openError: undefined });
        const answer = await api.projects.open({ path });
        if (!answer.ok) {
          set({ openingProject: false, openError: answer.error.message });
          return false;
        }
        set({ openingProject: false, projectDialogOpen: false });
        applyProject(answer.data);
        void get().loadRecentProjects();
        return true;
      },

      async loadTrustReview(force = false) {
        const answer = await api.project.review();
        if (!answer.ok) {
          set({ projectError: answer.error.message });
          return;
        }
        const review = answer.data;
        const show = force || (asksForTrust(review) && !get().trustDeferred.includes(review.root));
        set((state) => ({
          trustReview: review,
          trustDialogOpen: show || (state.trustDialogOpen && !review.trusted),
        }));
      },

      closeTrustDialog() {
        const root = get().trustReview?.root;
        set((state) => ({
          trustDialogOpen: false,
          trustDeferred:
            root && !state.trustDeferred.includes(root)
              ? [...state.trustDeferred, root]
              : state.trustDeferred,
        }));
      },

      select(toolId) {
        // The result on screen is the shown tool's: another tool's would read as this one's answer.
        const { selectedId, result } = get();
        set({ selectedId: toolId, result: toolId === selectedId ? result : undefined });
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
        // The last result goes: it is not this call's, and this one may run for long.
        set({
          running: true,
          runningToolId: tool.id,
          stopping: false,
          stopError: undefined,
          result: undefined,
        });
        const root = get().project?.root;
        // A mutating call may wait here for the person's answer in the approval dialog.
        const answer = await api.tools.call({ toolId: tool.id, args: parsed.args });
        // Another folder opened, or another tool was picked, meanwhile: the answer is not about
        // what is on screen (the Activity list and the Audit view still have it).
        const moved = get().project?.root !== root || get().selectedId !== tool.id;
        set({
          running: false,
          runningToolId: undefined,
          stopping: false,
          result: moved
            ? undefined
            : answer.ok
              ? { toolId: tool.id, status: "envelope", envelope: answer.data }
              : { toolId: tool.id, status: "failed", message: answer.error.message },
        });
      },

      async stop() {
        if (!get().running || get().stopping) return;
        set({ stopping: true, stopError: undefined });
        const answer = await api.tools.stop();
        if (!answer.ok)
          set({ stopping: false, stopError: `Could not stop the call: ${answer.error.message}` });
      },

      async respond(id, answer) {
        const head = get().approvals.find((waiting) => waiting.id === id);
        if (!head || get().answering) return;
        set({ answering: true, approvalError: undefined });
        const result = await api.approvals.respond({ id: head.id, answer });
        // Answered or not, this prompt is over: the host rejects whatever it cannot deliver. A
        // refusal of a prompt that settled meanwhile (answered in another tab, its run stopped)
        // is no failure of this answer: the prompt already left, and nothing is said.
        set((state) => ({
          answering: false,
          approvals: removeApproval(state.approvals, head.id),
          approvalError:
            result.ok || !state.approvals.some((waiting) => waiting.id === head.id)
              ? undefined
              : `Your answer to ${head.toolId} did not reach Lathe: ${result.error.message}`,
        }));
      },

      approvalsWaiting(requests) {
        set((state) => ({ approvals: requests.reduce(enqueueApproval, state.approvals) }));
      },

      async loadProject() {
        const answer = await api.project.status();
        if (answer.ok) {
          set({ projectError: undefined });
          applyProject(answer.data);
        } else set({ projectError: answer.error.message });
      },

      async trustProject() {
        if (get().trusting) return;
        set({ trusting: true, projectError: undefined });
        // What the person was shown is what gets trusted: the host refuses a folder changed since.
        const review = get().trustReview;
        const grants = review?.root === get().project?.root ? review?.grants : undefined;
        const answer = await api.project.trust(grants !== undefined ? { grants } : undefined);
        if (answer.ok) {
          set({ trusting: false, trustDialogOpen: false, project: answer.data });
          void get().loadTrustReview();
        } else {
          set({ trusting: false, projectError: answer.error.message });
          // Show what the folder grants now, for the person to review again.
          void get().loadTrustReview(true);
        }
      },

      dismissTrust() {
        set({ trustDismissed: true });
      },

      async answerMcpPrompt(approve) {
        const head = get().mcpPrompts[0];
        if (!head) return;
        set({ mcpPromptError: undefined });
        const answer = await api.mcp.approveUnsandboxed({ id: head.id, approve });
        // Answered or not, this dialog is over: the host settles what it cannot deliver as a no.
        set((state) => ({
          mcpPrompts: state.mcpPrompts.filter((p) => p.id !== head.id),
          mcpPromptError: answer.ok
            ? undefined
            : `Your answer about ${head.server} did not reach Lathe: ${answer.error.message}`,
        }));
      },

      dismissNotice(notice) {
        set((state) => ({ dismissedNotices: [...state.dismissedNotices, notice] }));
      },

      setConnectionLost(message) {
        if (message === undefined) set({ connectionLost: undefined });
        else set({ connectionLost: message, approvals: [], answering: false, mcpPrompts: [] });
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
          api.on("tool.phase", (event) =>
            set((state) => ({ activity: phaseActivity(state.activity, event) })),
          ),
          api.on("tool.finished", (event) =>
            set((state) => ({ activity: finishActivity(state.activity, event) })),
          ),
          api.on("project.status", (project) => applyProject(project)),
          api.on("mcp.unsandboxedRequested", (prompt) =>
            set((state) =>
              state.mcpPrompts.some((p) => p.id === prompt.id)
                ? {}
                : { mcpPrompts: [...state.mcpPrompts, prompt] },
            ),
          ),
          api.on("mcp.unsandboxedSettled", ({ id }) =>
            set((state) => ({ mcpPrompts: state.mcpPrompts.filter((p) => p.id !== id) })),
          ),
        ];
        return () => {
          for (const stop of stops) stop();
        };
      },
    };
  });
}
