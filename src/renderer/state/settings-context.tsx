import { createContext, useContext, type ReactNode } from "react";
import { useStore } from "zustand";
import type { SettingsState, SettingsStore } from "./settings-store.ts";

const SettingsContext = createContext<SettingsStore | undefined>(undefined);

export function SettingsProvider({ store, children }: { store: SettingsStore; children: ReactNode }) {
  return <SettingsContext.Provider value={store}>{children}</SettingsContext.Provider>;
}

/** Read a slice of the settings state; the component re-renders when that slice changes. */
export function useSettings<T>(selector: (state: SettingsState) => T): T {
  const store = useContext(SettingsContext);
  if (!store) throw new Error("useSettings needs a <SettingsProvider> above it");
  return useStore(store, selector);
}
