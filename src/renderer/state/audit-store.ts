import { createStore, type StoreApi } from "zustand/vanilla";
import type { LatheApi } from "../../shared/api-contract.ts";
import type { AuditEntry, AuditOutcome } from "../../shared/audit-schemas.ts";

interface AuditFilters {
  sessionId?: string | undefined;
  toolId?: string | undefined;
  outcome?: AuditOutcome | undefined;
}

export interface AuditState {
  /** The open folder the view was last shown for (as the app names it). */
  folder: string | undefined;
  /** The folder whose calls `entries` are, as the trail records it (its real path). */
  root: string | undefined;
  filters: AuditFilters;
  /** Newest first. */
  entries: AuditEntry[];
  more: boolean;
  sessions: string[];
  tools: string[];
  loading: boolean;
  error: string | undefined;
  /** Show the newest calls that match the filters. */
  load(): Promise<void>;
  /**
   * Show the calls of the open folder `folder`: when it is another folder than before, its
   * filters start afresh (a session of the last folder is none of this one's) and nothing of the
   * last folder stays on screen while its calls load.
   */
  showFolder(folder: string | undefined): Promise<void>;
  /** Append the next, older page. */
  loadMore(): Promise<void>;
  setFilters(patch: AuditFilters): Promise<void>;
}

export type AuditStore = StoreApi<AuditState>;

const PAGE = 50;

/** The Audit view: the trail of tool calls, newest first, a page at a time, filtered. */
export function createAuditStore(api: LatheApi): AuditStore {
  return createStore<AuditState>()((set, get) => {
    const query = (beforeId?: number) => {
      const { sessionId, toolId, outcome } = get().filters;
      return api.audit.query({
        limit: PAGE,
        ...(sessionId ? { sessionId } : {}),
        ...(toolId ? { toolId } : {}),
        ...(outcome ? { outcome } : {}),
        ...(beforeId !== undefined ? { beforeId } : {}),
      });
    };
    return {
      folder: undefined,
      root: undefined,
      filters: {},
      entries: [],
      more: false,
      sessions: [],
      tools: [],
      loading: false,
      error: undefined,

      async load() {
        const filters = get().filters;
        set({ loading: true, error: undefined });
        const answer = await query();
        if (get().filters !== filters) return;
        if (!answer.ok) {
          set({ loading: false, error: answer.error.message });
          return;
        }
        const { root, entries, more, sessions, tools } = answer.data;
        set({ loading: false, root, entries, more, sessions, tools });
      },

      async showFolder(folder) {
        if (folder !== get().folder) {
          set({ folder, root: undefined, filters: {}, entries: [], more: false, sessions: [], tools: [] });
        }
        await get().load();
      },

      async loadMore() {
        const { entries, loading, more, filters } = get();
        const last = entries.at(-1);
        if (loading || !more || !last) return;
        set({ loading: true });
        const answer = await query(last.id);
        if (get().filters !== filters) return;
        if (!answer.ok) {
          set({ loading: false, error: answer.error.message });
          return;
        }
        set((state) => ({
          loading: false,
          entries: [...state.entries, ...answer.data.entries],
          more: answer.data.more,
        }));
      },

      async setFilters(patch) {
        set((state) => ({ filters: { ...state.filters, ...patch } }));
        await get().load();
      },
    };
  });
}
