import { createStore, type StoreApi } from "zustand/vanilla";
import type { LatheApi } from "../../shared/api-contract.ts";
import type { SessionSummary } from "../../shared/session-schemas.ts";

/** A session in the sidebar, with the task sessions it started nested under it. */
export interface SessionNode {
  session: SessionSummary;
  children: SessionNode[];
}

/**
 * The list as a tree, newest first at each level: a task under its parent when the parent is in
 * the list; a task whose parent is not (a search matched only the task) stands on its own.
 */
export function sessionTree(sessions: readonly SessionSummary[]): SessionNode[] {
  const nodes = new Map<string, SessionNode>(sessions.map((s) => [s.id, { session: s, children: [] }]));
  const roots: SessionNode[] = [];
  for (const session of sessions) {
    const node = nodes.get(session.id) as SessionNode;
    const parent = session.parentId !== undefined ? nodes.get(session.parentId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

export interface SessionsState {
  /** The sessions the sidebar lists: those the search matches, or all of them. */
  sessions: SessionSummary[];
  /** Every session of the folder, whatever the search (the command palette offers them all). */
  all: SessionSummary[];
  /** The folder the list belongs to. */
  root: string | undefined;
  query: string;
  status: "loading" | "ready" | "failed";
  error: string | undefined;
  /** The session whose name is being edited in place. */
  renamingId: string | undefined;
  /** The session the delete confirmation asks about. */
  confirmingDelete: SessionSummary | undefined;
  /** Why the last rename or delete did not happen. */
  actionError: string | undefined;
  busy: boolean;
  load(): Promise<void>;
  /** The connection to the host closed: no run can be followed from here, so none is shown as running. */
  connectionLost(): void;
  setQuery(query: string): void;
  startRename(sessionId: string): void;
  cancelRename(): void;
  rename(sessionId: string, title: string): Promise<boolean>;
  askDelete(sessionId: string): void;
  cancelDelete(): void;
  /** Delete the session the confirmation asked about; resolves with the ids deleted. */
  confirmDelete(): Promise<string[]>;
}

export type SessionsStore = StoreApi<SessionsState>;

interface SessionsStoreOptions {
  /** How long typing waits before the search runs (ms; 0 searches at once). */
  searchDelayMs?: number;
}

/** The sidebar's session list: this folder's sessions, searched, renamed and deleted through the host. */
export function createSessionsStore(api: LatheApi, options: SessionsStoreOptions = {}): SessionsStore {
  const delay = options.searchDelayMs ?? 200;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;
  return createStore<SessionsState>()((set, get) => ({
    sessions: [],
    all: [],
    root: undefined,
    query: "",
    status: "loading",
    error: undefined,
    renamingId: undefined,
    confirmingDelete: undefined,
    actionError: undefined,
    busy: false,

    async load() {
      const mine = ++generation;
      const query = get().query.trim();
      // While a search narrows the sidebar, the whole list is asked for too (for the palette).
      const [answer, whole] = await Promise.all([
        api.sessions.list(query === "" ? {} : { query }),
        query === "" ? undefined : api.sessions.list({}),
      ]);
      // A later load (the person typed on) wins.
      if (mine !== generation) return;
      if (!answer.ok) return set({ status: "failed", error: answer.error.message });
      if (whole !== undefined && !whole.ok) return set({ status: "failed", error: whole.error.message });
      set({
        sessions: answer.data.sessions,
        all: whole?.data.sessions ?? answer.data.sessions,
        root: answer.data.root,
        status: "ready",
        error: undefined,
      });
    },

    connectionLost() {
      const idle = (list: SessionSummary[]) => list.map((s) => (s.running ? { ...s, running: false } : s));
      set({ sessions: idle(get().sessions), all: idle(get().all) });
    },

    setQuery(query) {
      set({ query });
      if (timer !== undefined) clearTimeout(timer);
      if (delay === 0) void get().load();
      else timer = setTimeout(() => void get().load(), delay);
    },

    startRename(sessionId) {
      set({ renamingId: sessionId, actionError: undefined });
    },

    cancelRename() {
      set({ renamingId: undefined });
    },

    async rename(sessionId, title) {
      set({ busy: true, actionError: undefined });
      const answer = await api.sessions.rename({ sessionId, title });
      if (!answer.ok) {
        set({ busy: false, actionError: answer.error.message });
        return false;
      }
      const renamed = answer.data;
      set((state) => ({
        busy: false,
        renamingId: undefined,
        sessions: state.sessions.map((s) => (s.id === renamed.id ? renamed : s)),
        all: state.all.map((s) => (s.id === renamed.id ? renamed : s)),
      }));
      return true;
    },

    askDelete(sessionId) {
      const session = get().sessions.find((s) => s.id === sessionId);
      if (session) set({ confirmingDelete: session, actionError: undefined });
    },

    cancelDelete() {
      set({ confirmingDelete: undefined, actionError: undefined });
    },

    async confirmDelete() {
      const target = get().confirmingDelete;
      if (!target || get().busy) return [];
      set({ busy: true, actionError: undefined });
      const answer = await api.sessions.delete({ sessionId: target.id });
      if (!answer.ok) {
        set({ busy: false, actionError: answer.error.message });
        return [];
      }
      const gone = new Set(answer.data.deleted);
      set((state) => ({
        busy: false,
        confirmingDelete: undefined,
        sessions: state.sessions.filter((s) => !gone.has(s.id)),
        all: state.all.filter((s) => !gone.has(s.id)),
      }));
      return answer.data.deleted;
    },
  }));
}
