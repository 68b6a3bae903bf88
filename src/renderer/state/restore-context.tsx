import { createContext, useContext, type ReactNode } from "react";
import { useStore } from "zustand";
import type { RestoreState, RestoreStore } from "./restore-store.ts";

const RestoreContext = createContext<RestoreStore | undefined>(undefined);

export function RestoreProvider({ store, children }: { store: RestoreStore; children: ReactNode }) {
  return <RestoreContext.Provider value={store}>{children}</RestoreContext.Provider>;
}

/** Read a slice of the restore dialog's state; the component re-renders when that slice changes. */
export function useRestore<T>(selector: (state: RestoreState) => T): T {
  const store = useContext(RestoreContext);
  if (!store) throw new Error("useRestore needs a <RestoreProvider> above it");
  return useStore(store, selector);
}
