import { createContext, useContext, type ReactNode } from "react";
import { useStore } from "zustand";
import type { SessionsState, SessionsStore } from "./sessions-store.ts";

const SessionsContext = createContext<SessionsStore | undefined>(undefined);

export function SessionsProvider({ store, children }: { store: SessionsStore; children: ReactNode }) {
  return <SessionsContext.Provider value={store}>{children}</SessionsContext.Provider>;
}

/** Read a slice of the session list; the component re-renders when that slice changes. */
export function useSessions<T>(selector: (state: SessionsState) => T): T {
  const store = useContext(SessionsContext);
  if (!store) throw new Error("useSessions needs a <SessionsProvider> above it");
  return useStore(store, selector);
}
