// The tab id kept in the tab's sessionStorage: what is kept is presented, what is assigned is kept,
// and a storage that refuses costs nothing but the id.
import { describe, expect, it, vi } from "vitest";
import { sessionTabId, TAB_ID_KEY } from "./session-tab-id.ts";

function memory(): Pick<Storage, "getItem" | "setItem"> & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
  };
}

describe("sessionTabId", () => {
  it("presents nothing at first, then the id assigned to the tab", () => {
    const storage = memory();
    const tab = sessionTabId(storage);
    expect(tab.presented()).toBeUndefined();
    tab.assigned("tab-assigned-by-host");
    expect(storage.items.get(TAB_ID_KEY)).toBe("tab-assigned-by-host");
    // A reload makes a new store over the same sessionStorage.
    expect(sessionTabId(storage).presented()).toBe("tab-assigned-by-host");
  });

  it("works on without the id when the storage refuses, saying so once per refusal", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const refusing = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
    };
    const tab = sessionTabId(refusing);
    expect(tab.presented()).toBeUndefined();
    expect(() => tab.assigned("tab-assigned-by-host")).not.toThrow();
    expect(error).toHaveBeenCalledTimes(1);
    error.mockRestore();
  });
});
