import { createStore, type StoreApi } from "zustand/vanilla";
import type { LatheApi } from "../../shared/api-contract.ts";
import type { AuditEntry, AuditOutcome } from "../../shared/audit-schemas.ts";

interface AuditFilters {
  sessionId?: string | undefined;
  toolId?: string | undefined;
  outcome?: AuditOutcome | undefined;
}

export interface AuditState {
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
        const { entries, more, sessions, tools } = answer.data;
        set({ loading: false, entries, more, sessions, tools });
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
