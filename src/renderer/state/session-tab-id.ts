import type { TabIdStore } from "../../preload/ws-api.ts";

/** Where the tab id is kept in the tab's sessionStorage. */
export const TAB_ID_KEY = "lathe.tabId";

/**
 * The tab id kept in `storage` (the tab's sessionStorage: a reload of the tab keeps it, other tabs
 * do not see it, a duplicated tab starts with a copy that the server replaces). A storage that
 * refuses (full, or disabled) costs only this: the runs of this tab do not survive its reload.
 */
export function sessionTabId(storage: Pick<Storage, "getItem" | "setItem">): TabIdStore {
  return {
    presented: () => {
      try {
        return storage.getItem(TAB_ID_KEY) ?? undefined;
      } catch {
        return undefined;
      }
    },
    assigned: (tabId) => {
      try {
        storage.setItem(TAB_ID_KEY, tabId);
      } catch (error) {
        console.error("lathe: could not keep this tab's id; a reload will not find its runs:", error);
      }
    },
  };
}
