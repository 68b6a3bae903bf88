import { createContext, useContext, type ReactNode } from "react";
import { useStore } from "zustand";
import type { AppState, AppStore } from "./app-store.ts";

const StoreContext = createContext<AppStore | undefined>(undefined);

export function StoreProvider({ store, children }: { store: AppStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

/** Read a slice of the app state; the component re-renders when that slice changes. */
export function useAppState<T>(selector: (state: AppState) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error("useAppState needs a <StoreProvider> above it");
  return useStore(store, selector);
}

/** The store itself, for code that reads it outside rendering (key handlers). */
export function useAppStore(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error("useAppStore needs its provider above it");
  return store;
}
