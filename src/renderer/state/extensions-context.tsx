import { createContext, useContext, type ReactNode } from "react";
import { useStore } from "zustand";
import type { ExtensionsState, ExtensionsStore } from "./extensions-store.ts";

const ExtensionsContext = createContext<ExtensionsStore | undefined>(undefined);

export function ExtensionsProvider({ store, children }: { store: ExtensionsStore; children: ReactNode }) {
  return <ExtensionsContext.Provider value={store}>{children}</ExtensionsContext.Provider>;
}

/** Read a slice of the extensions state; the component re-renders when that slice changes. */
export function useExtensions<T>(selector: (state: ExtensionsState) => T): T {
  const store = useContext(ExtensionsContext);
  if (!store) throw new Error("useExtensions needs an <ExtensionsProvider> above it");
  return useStore(store, selector);
}
