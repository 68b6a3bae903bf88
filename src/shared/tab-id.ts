// Which browser tab (or window) a UI connection is: a random id the page keeps in its
// `sessionStorage`, so it survives a reload of that tab and is not seen by other tabs. The page
// presents it when it connects (the `tab` query parameter of the WebSocket URL); the host answers
// with the id it goes by (`tab.assigned`): the same one, or a fresh one when that id is already in
// use by a live tab (a duplicated tab copies its original's sessionStorage). A chat run belongs to
// the tab that started it, across that tab's reloads.
import { z } from "zod";

/** The WebSocket URL's query parameter that carries the tab id. */
export const TAB_PARAM = "tab";

/** A tab id: 16 to 64 URL-safe characters (what `newTabId` makes is a UUID). */
export const TabIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{16,64}$/, "a tab id is 16 to 64 of A-Z a-z 0-9 _ -");

/** The push that tells a page which tab id it goes by from now on: keep it for the next connection. */
export const TabAssignedSchema = z.strictObject({ tabId: TabIdSchema });

/** A fresh random tab id. */
export function newTabId(): string {
  return globalThis.crypto.randomUUID();
}

/** `value` when it is a well-formed tab id, else undefined. */
export function parseTabId(value: unknown): string | undefined {
  const parsed = TabIdSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
