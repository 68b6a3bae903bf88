import { createContext, useContext, type ReactNode } from "react";
import { useStore } from "zustand";
import type { AuditState, AuditStore } from "./audit-store.ts";

const AuditContext = createContext<AuditStore | undefined>(undefined);

export function AuditProvider({ store, children }: { store: AuditStore; children: ReactNode }) {
  return <AuditContext.Provider value={store}>{children}</AuditContext.Provider>;
}

/** Read a slice of the audit state; the component re-renders when that slice changes. */
export function useAudit<T>(selector: (state: AuditState) => T): T {
  const store = useContext(AuditContext);
  if (!store) throw new Error("useAudit needs a <AuditProvider> above it");
  return useStore(store, selector);
}
