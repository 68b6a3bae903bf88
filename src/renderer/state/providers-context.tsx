import { createContext, useContext, type ReactNode } from "react";
import { useStore } from "zustand";
import type { ProvidersState, ProvidersStore } from "./providers-store.ts";

const ProvidersContext = createContext<ProvidersStore | undefined>(undefined);

export function ProvidersProvider({ store, children }: { store: ProvidersStore; children: ReactNode }) {
  return <ProvidersContext.Provider value={store}>{children}</ProvidersContext.Provider>;
}

/** Read a slice of the provider keys' state; the component re-renders when that slice changes. */
export function useProviders<T>(selector: (state: ProvidersState) => T): T {
  const store = useContext(ProvidersContext);
  if (!store) throw new Error("useProviders needs a <ProvidersProvider> above it");
  return useStore(store, selector);
}
