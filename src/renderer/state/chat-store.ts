import { createStore, type StoreApi } from "zustand/vanilla";
import type { LatheApi } from "../../shared/api-contract.ts";
import type { AgentList, TodoItem } from "../../shared/chat-schemas.ts";
import type { CheckpointSummary } from "../../shared/checkpoint-schemas.ts";
import type { ModelCatalog } from "../../shared/model-catalog-schemas.ts";
import type { ApprovalRequest, QuestionPrompt, RunEventPayload } from "../../shared/push-events.ts";
import type { BackgroundTask } from "../../shared/task-schemas.ts";
import { promptsFor } from "./approval-queue.ts";
import { applyToTurn, interruptTurn, newTurn, turnFromHistory, type Turn } from "./transcript.ts";
import { hiddenAtFirst, showEarlier } from "./transcript-window.ts";

export interface ChatState {
  /** The session on screen; a new chat gets a fresh id (the host records it on the first send). */
  sessionId: string;
  turns: Turn[];
  /** The items at the conversation's start the chat does not draw (see transcript-window.ts). */
  hiddenItems: number;
  /** Whether this session's run is going on (Send waits, Stop works). */
  running: boolean;
  /**
   * Whether the run going on is this tab's: it started it, or took it over on coming back to the
   * chat after a reload. Such a tab stays with its run (closing it for good stops the run); a tab
   * that only watches a run another tab started may go to another chat, the run going on.
   */
  ownsRun: boolean;
  /** The run going on, once the host named it. */
  runId: string | undefined;
  stopping: boolean;
  /** Why the last send or stop did not happen. */
  sendError: string | undefined;
  /** The prompt being typed (kept when the person switches views). */
  draft: string;
  todos: TodoItem[];
  /** The session's background tasks (they may go on after their run), running and ended, oldest first. */
  tasks: BackgroundTask[];
  /** Background tasks whose Stop was pressed and that have not ended yet. */
  stoppingTasks: string[];
  /** What the model picker offers (detected local servers, GGUF files, cloud providers). */
  catalog: ModelCatalog | undefined;
  catalogLoading: boolean;
  /** Why the models could not be listed. */
  catalogError: string | undefined;
  /** `PROVIDER:MODEL` as picked or typed; empty lets the host choose (the session's, the agent's, settings'). */
  model: string;
  /** The session's checkpoints (calls that changed files, restores), oldest first. */
  checkpoints: CheckpointSummary[];
  agents: AgentList["agents"];
  agentNotices: string[];
  agent: string;
  /**
   * Questions waiting for the person, of every chat session, in the order they came; the dialog
   * shows the first of the session on screen (`shownQuestions`).
   */
  questions: QuestionPrompt[];
  answering: boolean;
  questionError: string | undefined;
  loadPickers(): Promise<void>;
  /** Detect the models again (a server was started, a file added). */
  refreshCatalog(): Promise<void>;
  setModel(model: string): void;
  /** Pick a model for this chat and remember it as this folder's. */
  pickModel(model: string): Promise<void>;
  /** Forget this folder's remembered model (new chats start with the settings' default). */
  forgetProjectModel(): Promise<void>;
  /** Add a GGUF file (a path on the host) to the models folder; resolves to the refusal, if any. */
  addGguf(path: string): Promise<string | undefined>;
  /** Fetch the session's checkpoints again. */
  loadCheckpoints(): Promise<void>;
  /** Redraw the session from its record (after a rewind cut its conversation). */
  reload(): Promise<void>;
  setAgent(agent: string): void;
  setDraft(text: string): void;
  /** Send the draft as a prompt in this session, or `prompt` instead (the draft then stays). */
  send(prompt?: string): Promise<void>;
  /** Stop the run going on. */
  stop(): Promise<void>;
  /** Start over in a fresh session (not while this tab's own run goes on). */
  newChat(): void;
  /** Draw earlier items of the conversation that were left undrawn. */
  showEarlier(): void;
  /** Sessions were deleted (in this tab or another): leave the open one if it is among them. */
  sessionsDeleted(ids: readonly string[]): void;
  /** Redraw a recorded session (after a reload). */
  restore(sessionId: string): Promise<void>;
  /** Show another recorded session (from the session list); not while this tab's own run goes on. */
  openSession(sessionId: string): Promise<boolean>;
  /** Tool calls whose Stop was pressed and not yet answered. */
  stoppingTools: string[];
  /** Stop one running tool call of the run going on; the run goes on. */
  stopTool(toolCallId: string): Promise<void>;
  /** Stop one background task of the session, whether or not the run that started it goes on. */
  stopTask(taskId: string): Promise<void>;
  /** The host moved to another folder: start afresh there (a run cannot be going on). */
  reset(): void;
  answerQuestion(answers: string[][]): Promise<void>;
  dismissQuestion(): Promise<void>;
  /** The person changed the answers: the last refusal no longer applies. */
  clearQuestionError(): void;
  /**
   * The connection to the host closed: the run on screen gets no more events, so it is shown as
   * interrupted and the chat is usable again; open questions can no longer be answered.
   */
  connectionLost(): void;
  /** Listen to the host's chat pushes; returns the function that stops listening. */
  connect(): () => void;
}

export type ChatStore = StoreApi<ChatState>;

interface ChatStoreOptions {
  /** Where the session on screen is remembered across reloads (the tab's sessionStorage in the app). */
  storage?: Pick<Storage, "getItem" | "setItem" | "removeItem">;
  newSessionId?: () => string;
  /** The page's clock, for the elapsed time of running calls. */
  now?: () => number;
  /** A session was recorded or changed (a run started or ended): the session list follows. */
  onSessionsChanged?: () => void;
  /** A session opened here has runs waiting for approvals (asked before it was opened here). */
  onApprovalsWaiting?: (approvals: ApprovalRequest[]) => void;
}

export const SESSION_KEY = "lathe.chat.session";

/** The questions the dialog shows: those of the chat on screen (its run's, or a subagent's it opened). */
export function shownQuestions(state: Pick<ChatState, "questions" | "sessionId">): QuestionPrompt[] {
  return promptsFor(state.questions, state.sessionId);
}

/** The model a new chat starts with: this folder's pick, the settings' default, else the first running one. */
export function initialModel(catalog: ModelCatalog): string {
  const running = catalog.local.find((s) => s.state === "running" && s.models.length > 0);
  return catalog.projectModel ?? catalog.defaultModel ?? running?.models[0]?.id ?? "";
}

/** A fresh session id in the engine's format (letters, digits and "-"). */
export function randomSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `s-${Date.now().toString(36)}-${hex}`;
}

/** The state of a chat with nothing in it yet: a new one, or one about to be restored. */
function emptyChat(sessionId: string) {
  return {
    sessionId,
    running: false,
    ownsRun: false,
    stopping: false,
    turns: [],
    hiddenItems: 0,
    todos: [],
    tasks: [],
    stoppingTasks: [],
    checkpoints: [],
    runId: undefined,
    sendError: undefined,
    stoppingTools: [],
  } satisfies Partial<ChatState>;
}

/** What "Continue" sends after a dropped connection: the model reads its cut-off answer marked as such. */
export const CONTINUE_PROMPT = "Go on from where your answer was cut off.";

const BUSY = "A run is going on in this chat: wait for it to finish, or press Stop.";
/** Leaving a chat whose run is this tab's: the run would go on with nobody to see it end. */
const OWN_RUN =
  "This tab started the run going on here: wait for it to finish, or press Stop, then go to another chat.";

export function createChatStore(api: LatheApi, options: ChatStoreOptions = {}): ChatStore {
  const storage = options.storage;
  const newId = options.newSessionId ?? randomSessionId;
  const now = options.now ?? Date.now;
  const sessionsChanged = (): void => options.onSessionsChanged?.();
  return createStore<ChatState>()((set, get) => {
    /** The session whose history is on its way, and its run's pushes that arrived meanwhile. */
    let restoring: { sessionId: string; held: RunEventPayload[] } | undefined;
    /** A redrawn run's pushes below `index` are already in the redrawn turn. */
    let redrawn: { runId: string; index: number } | undefined;

    /** Apply an event to the turn under way (a run started elsewhere, in another tab, gets a turn of its own). */
    const onRunEvent = (payload: RunEventPayload): void => {
      const { sessionId, runId, index, event } = payload;
      if (sessionId !== get().sessionId) return;
      if (restoring?.sessionId === sessionId) {
        restoring.held.push(payload);
        return;
      }
      if (redrawn?.runId === runId && index < redrawn.index) return;
      // A background task goes on after the run that started it: its events go under that run's
      // card, and the chat stays as it is (no run is going on; Send works).
      if (event.type === "task") {
        const ended = get().turns.findIndex((turn) => turn.runId === runId && turn.status !== "running");
        if (ended !== -1) {
          set((state) => ({
            turns: state.turns.map((turn, i) => (i === ended ? applyToTurn(turn, event, now()) : turn)),
          }));
          return;
        }
      }
      set((state) => {
        const last = state.turns.at(-1);
        const current = last && last.status === "running" ? last : newTurn(payload.prompt ?? "");
        const turns = last === current ? state.turns.slice(0, -1) : state.turns;
        const turn = applyToTurn(current, event, now());
        const finished = event.type === "finish";
        return {
          turns: [...turns, turn],
          running: !finished,
          // A run that began here in another tab is that tab's; this one only watches it.
          ownsRun: finished ? false : last === current && state.ownsRun,
          runId: finished ? undefined : (turn.runId ?? state.runId),
          stopping: finished ? false : state.stopping,
          stoppingTools: finished ? [] : state.stoppingTools,
          // "A run is going on" is over with the run; any other error stays until the next send.
          sendError:
            finished && (state.sendError === BUSY || state.sendError === OWN_RUN)
              ? undefined
              : state.sendError,
        };
      });
      if (event.type === "finish") {
        sessionsChanged();
        void get().loadCheckpoints();
      }
    };

    return {
      sessionId: storage?.getItem(SESSION_KEY) ?? newId(),
      turns: [],
      hiddenItems: 0,
      running: false,
      ownsRun: false,
      runId: undefined,
      stopping: false,
      sendError: undefined,
      draft: "",
      todos: [],
      tasks: [],
      stoppingTasks: [],
      catalog: undefined,
      catalogLoading: false,
      catalogError: undefined,
      model: "",
      checkpoints: [],
      agents: [],
      agentNotices: [],
      agent: "default",
      questions: [],
      answering: false,
      questionError: undefined,
      stoppingTools: [],

      async loadPickers() {
        const [, agents] = await Promise.all([get().refreshCatalog(), api.agents.list()]);
        if (agents.ok) {
          set({
            agents: agents.data.agents,
            agentNotices: [...agents.data.problems, ...agents.data.notices],
          });
        } else {
          set({ agentNotices: [`The agents could not be listed: ${agents.error.message}`] });
        }
      },

      async refreshCatalog() {
        set({ catalogLoading: true });
        const answer = await api.models.catalog();
        if (!answer.ok) {
          set({
            catalogLoading: false,
            catalogError: `The models could not be listed: ${answer.error.message}`,
          });
          return;
        }
        set((state) => ({
          catalog: answer.data,
          catalogLoading: false,
          catalogError: undefined,
          model: state.model || initialModel(answer.data),
        }));
      },

      async pickModel(model) {
        set({ model });
        const answer = await api.models.setProjectModel({ model });
        if (answer.ok) set({ catalog: answer.data, catalogError: undefined });
        else
          set({ catalogError: `The model could not be remembered for this folder: ${answer.error.message}` });
      },

      async forgetProjectModel() {
        const answer = await api.models.setProjectModel({ model: null });
        if (answer.ok) set({ catalog: answer.data, catalogError: undefined });
        else set({ catalogError: `The folder's model could not be forgotten: ${answer.error.message}` });
      },

      async addGguf(path) {
        const answer = await api.models.addGguf({ path });
        if (!answer.ok) return answer.error.message;
        set({ catalog: answer.data });
        return undefined;
      },

      async loadCheckpoints() {
        const sessionId = get().sessionId;
        const answer = await api.checkpoints.list({ sessionId });
        // A session never recorded has none; the list stays empty.
        if (get().sessionId !== sessionId) return;
        set({ checkpoints: answer.ok ? answer.data : [] });
      },

      async reload() {
        const { sessionId, running } = get();
        if (running) return;
        set({ turns: [], hiddenItems: 0, todos: [], runId: undefined, stoppingTools: [] });
        await get().restore(sessionId);
      },

      setModel(model) {
        set({ model });
      },

      setAgent(agent) {
        set({ agent });
      },

      setDraft(text) {
        set({ draft: text });
      },

      async send(given) {
        const { running, sessionId, model, agent } = get();
        const draft = given ?? get().draft;
        if (draft.trim() === "") return;
        if (running) {
          set({ sendError: BUSY });
          return;
        }
        const sent = newTurn(draft);
        set((state) => ({
          turns: [...state.turns, sent],
          running: true,
          ownsRun: true,
          runId: undefined,
          sendError: undefined,
          draft: given === undefined ? "" : state.draft,
        }));
        storage?.setItem(SESSION_KEY, sessionId);
        const answer = await api.chat.send({
          prompt: draft,
          sessionId,
          ...(model.trim() !== "" ? { model: model.trim() } : {}),
          ...(agent !== "" ? { agent } : {}),
        });
        if (answer.ok) {
          // The run may have finished (and said so) before this answer arrived.
          if (get().running && get().runId === undefined) set({ runId: answer.data.runId });
          sessionsChanged();
          return;
        }
        // Refused before any run began: the prompt was not sent, so it leaves the conversation and
        // comes back to the box with the reason above it (said once, where it is fixed and sent again).
        set((state) => ({
          turns: state.turns.at(-1) === sent ? state.turns.slice(0, -1) : state.turns,
          running: false,
          ownsRun: false,
          sendError: answer.error.message,
          draft: given === undefined ? state.draft || draft : state.draft,
        }));
      },

      async stop() {
        const { runId, stopping } = get();
        if (!runId || stopping) return;
        set({ stopping: true, sendError: undefined });
        const answer = await api.chat.abort({ runId });
        if (!answer.ok)
          set({ stopping: false, sendError: `Could not stop the run: ${answer.error.message}` });
      },

      showEarlier() {
        set((state) => ({ hiddenItems: showEarlier(state.hiddenItems) }));
      },

      newChat() {
        if (get().running && get().ownsRun) {
          set({ sendError: OWN_RUN });
          return;
        }
        const sessionId = newId();
        storage?.removeItem(SESSION_KEY);
        set(emptyChat(sessionId));
      },

      sessionsDeleted(ids) {
        if (!ids.includes(get().sessionId)) return;
        storage?.removeItem(SESSION_KEY);
        // Sending on would start the deleted session afresh under its id, the model none the wiser.
        set({
          ...emptyChat(newId()),
          sendError: "The chat that was open here was deleted; what you send now starts a new chat.",
        });
      },

      reset() {
        storage?.removeItem(SESSION_KEY);
        set({ ...emptyChat(newId()), model: "" });
        void get().loadPickers();
      },

      async openSession(sessionId) {
        if (get().sessionId === sessionId) return true;
        if (get().running && get().ownsRun) {
          set({ sendError: OWN_RUN });
          return false;
        }
        storage?.setItem(SESSION_KEY, sessionId);
        set(emptyChat(sessionId));
        await get().restore(sessionId);
        return true;
      },

      async stopTool(toolCallId) {
        const { runId, stoppingTools } = get();
        if (!runId || stoppingTools.includes(toolCallId)) return;
        set({ stoppingTools: [...stoppingTools, toolCallId], sendError: undefined });
        const answer = await api.chat.stopTool({ runId, toolCallId });
        if (!answer.ok) {
          set((state) => ({
            stoppingTools: state.stoppingTools.filter((id) => id !== toolCallId),
            sendError: `Could not stop the call: ${answer.error.message}`,
          }));
        }
      },

      async stopTask(taskId) {
        if (get().stoppingTasks.includes(taskId)) return;
        set((state) => ({ stoppingTasks: [...state.stoppingTasks, taskId], sendError: undefined }));
        const answer = await api.chat.stopTask({ taskId });
        if (!answer.ok) {
          set((state) => ({
            stoppingTasks: state.stoppingTasks.filter((id) => id !== taskId),
            sendError: `Could not stop the task: ${answer.error.message}`,
          }));
        }
      },

      async restore(sessionId) {
        // A run going on in the session (this tab's or another's) keeps pushing while the history
        // comes: those pushes wait, then only the ones the history does not hold are applied.
        const waiting = { sessionId, held: [] as RunEventPayload[] };
        restoring = waiting;
        let answer: Awaited<ReturnType<typeof api.chat.history>>;
        try {
          answer = await api.chat.history({ sessionId });
        } finally {
          if (restoring === waiting) restoring = undefined;
        }
        const replay = (): void => {
          if (get().sessionId === sessionId) for (const payload of waiting.held) onRunEvent(payload);
        };
        if (!answer.ok || get().sessionId !== sessionId || get().turns.length > 0) {
          // Never recorded (nothing was sent), gone, or left meanwhile: start afresh under the same id.
          replay();
          return;
        }
        const history = answer.data;
        // A run going on in it whose Stop this page pressed before a reload is not known here.
        const runningRunId = history.runningRunId;
        redrawn =
          runningRunId !== undefined && history.runningNextIndex !== undefined
            ? { runId: runningRunId, index: history.runningNextIndex }
            : undefined;
        // A background task's own session, opened while the task works: its last turn is not over
        // (it goes on in the chat that started it; the task list says when it ends).
        const taskWorking = history.tasks.some((t) => t.taskId === sessionId && t.status === "running");
        const last = history.turns.length - 1;
        options.onApprovalsWaiting?.(history.approvals);
        const turns = history.turns.map((turn, i) =>
          turnFromHistory(turn, turn.runId === runningRunId || (taskWorking && i === last)),
        );
        set((state) => ({
          questions: [
            ...state.questions,
            ...history.questions.filter((q) => !state.questions.some((known) => known.id === q.id)),
          ],
          turns,
          hiddenItems: hiddenAtFirst(turns),
          todos: history.todos,
          tasks: history.tasks,
          running: runningRunId !== undefined,
          // The host handed this tab the run its page started before a reload.
          ownsRun: runningRunId !== undefined && history.runOwned === true,
          runId: runningRunId,
          model: state.model || history.model,
          agent: history.agent,
        }));
        replay();
        void get().loadCheckpoints();
      },

      async answerQuestion(answers) {
        const head = shownQuestions(get())[0];
        if (!head || get().answering) return;
        set({ answering: true, questionError: undefined });
        const answer = await api.questions.respond({ id: head.id, answers });
        if (answer.ok || !get().questions.some((q) => q.id === head.id)) {
          // Answered, or over meanwhile (answered in another tab, its run stopped): nothing to say.
          set((state) => ({ answering: false, questions: state.questions.filter((q) => q.id !== head.id) }));
        } else {
          // The dialog stays: the message says what to change.
          set({ answering: false, questionError: answer.error.message });
        }
      },

      async dismissQuestion() {
        const head = shownQuestions(get())[0];
        if (!head || get().answering) return;
        set({ answering: true, questionError: undefined });
        await api.questions.respond({ id: head.id, dismissed: true });
        // Dismissed or already over: either way this dialog is done.
        set((state) => ({ answering: false, questions: state.questions.filter((q) => q.id !== head.id) }));
      },

      clearQuestionError() {
        if (get().questionError !== undefined) set({ questionError: undefined });
      },

      connectionLost() {
        set((state) => ({
          turns: state.turns.map(interruptTurn),
          running: false,
          ownsRun: false,
          runId: undefined,
          stopping: false,
          stoppingTools: [],
          stoppingTasks: [],
          questions: [],
          answering: false,
          sendError: state.sendError === BUSY || state.sendError === OWN_RUN ? undefined : state.sendError,
        }));
      },

      connect() {
        const stops = [
          api.on("run.event", onRunEvent),
          api.on("todos.changed", ({ sessionId, todos }) => {
            if (sessionId === get().sessionId) set({ todos });
          }),
          api.on("tasks.changed", ({ sessionId, tasks }) => {
            if (sessionId !== get().sessionId) return;
            const running = new Set(tasks.filter((t) => t.status === "running").map((t) => t.taskId));
            // The open session is a task that just ended: redraw it as it finished.
            const ended =
              get().tasks.some((t) => t.taskId === sessionId && t.status === "running") &&
              !running.has(sessionId);
            set((state) => ({ tasks, stoppingTasks: state.stoppingTasks.filter((id) => running.has(id)) }));
            if (ended) void get().reload();
          }),
          // Deleted in another tab or window: sending on would bring it back empty.
          api.on("sessions.changed", ({ deleted }) => {
            if (deleted) get().sessionsDeleted(deleted);
          }),
          api.on("checkpoints.changed", ({ sessionId }) => {
            if (sessionId === get().sessionId) void get().loadCheckpoints();
          }),
          api.on("question.requested", (prompt) =>
            set((state) =>
              state.questions.some((q) => q.id === prompt.id)
                ? {}
                : { questions: [...state.questions, prompt] },
            ),
          ),
          api.on("question.settled", ({ id }) =>
            set((state) => ({
              questions: state.questions.filter((q) => q.id !== id),
              questionError: shownQuestions(state)[0]?.id === id ? undefined : state.questionError,
            })),
          ),
        ];
        return () => {
          for (const stop of stops) stop();
        };
      },
    };
  });
}
