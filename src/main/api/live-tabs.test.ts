// Which tab a connection is, on a fake clock: a reloaded tab (same id) has its runs back at once,
// even when its old connection's close arrives after the new connection; a duplicated tab (same
// id, original still open) gets a fresh id; no other tab takes a waiting run over; a tab really
// closed has its runs stopped after the grace.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TabIdSchema } from "../../shared/tab-id.ts";
import type { Engine } from "../engine/index.ts";
import { LiveTabs, type TabHolder } from "./live-tabs.ts";
import { RunOwners, TAB_CLOSED } from "./run-owners.ts";

const engine = {} as Engine;
const GRACE = 5_000;
const X = "tab-xxxxxxxxxxxxxxxx";

/** A run that ends when stopped, remembering why. */
function work(sessionId: string) {
  let end: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (end = resolve));
  const stopped: string[] = [];
  return { sessionId, engine, done, stopped, stop: (reason: Error) => (stopped.push(reason.message), end()) };
}

/** A connection whose page answers `alive` as told (a function, to answer late or throw). */
function holder(alive: () => Promise<boolean> = () => Promise.resolve(true)): TabHolder & { asked: number } {
  const h = {
    asked: 0,
    alive: () => {
      h.asked++;
      return alive();
    },
  };
  return h;
}

function host() {
  const owners = new RunOwners(GRACE);
  return { owners, tabs: new LiveTabs(owners) };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("LiveTabs", () => {
  it("gives a reloaded tab its run back even when its old connection's close arrives after the new connection", async () => {
    const { owners, tabs } = host();
    const old = holder(() => Promise.resolve(false));
    expect(await tabs.claim(old, X)).toBe(X);
    const run = work("s-1");
    owners.own(X, run);
    // The reloaded page connects first; the old socket, asked, no longer answers as open.
    const reloaded = holder();
    expect(await tabs.claim(reloaded, X)).toBe(X);
    expect(old.asked).toBe(1);
    expect(owners.owns(X, "s-1")).toBe(true);
    // The old connection's close comes in late: it is no longer the tab, and starts no grace.
    tabs.release(old, X);
    await vi.advanceTimersByTimeAsync(GRACE * 10);
    expect(run.stopped).toEqual([]);
    expect(owners.owns(X, "s-1")).toBe(true);
    // The reloaded page closing for good does start the grace.
    tabs.release(reloaded, X);
    await vi.advanceTimersByTimeAsync(GRACE);
    expect(run.stopped).toEqual([TAB_CLOSED]);
  });

  it("gives a reloaded tab its run back when its old connection's close came first", async () => {
    const { owners, tabs } = host();
    const old = holder();
    await tabs.claim(old, X);
    const run = work("s-1");
    owners.own(X, run);
    tabs.release(old, X);
    await vi.advanceTimersByTimeAsync(GRACE - 1);
    const reloaded = holder();
    expect(await tabs.claim(reloaded, X)).toBe(X);
    await vi.advanceTimersByTimeAsync(GRACE * 10);
    expect(run.stopped).toEqual([]);
    expect(owners.owns(X, "s-1")).toBe(true);
  });

  it.each([
    { case: "presenting no id", presented: undefined },
    { case: "presenting its own id", presented: "tab-other-other-other" },
  ])("lets no other tab ($case) take the run over during the grace: the run stops", async ({ presented }) => {
    const { owners, tabs } = host();
    const starter = holder();
    await tabs.claim(starter, X);
    const run = work("s-1");
    owners.own(X, run);
    tabs.release(starter, X);
    await vi.advanceTimersByTimeAsync(2_000);
    const other = holder();
    const id = await tabs.claim(other, presented);
    expect(id).not.toBe(X);
    expect(owners.owns(id, "s-1")).toBe(false);
    await vi.advanceTimersByTimeAsync(GRACE - 2_000);
    expect(run.stopped).toEqual([TAB_CLOSED]);
  });

  it("gives a duplicated tab (its original still open) a fresh id: the run stays the original's", async () => {
    const { owners, tabs } = host();
    const original = holder(() => Promise.resolve(true));
    await tabs.claim(original, X);
    const run = work("s-1");
    owners.own(X, run);
    const duplicate = holder();
    const id = await tabs.claim(duplicate, X);
    expect(id).not.toBe(X);
    expect(TabIdSchema.safeParse(id).success).toBe(true);
    expect(owners.owns(id, "s-1")).toBe(false);
    // The duplicate closing costs the original nothing.
    tabs.release(duplicate, id);
    tabs.release(duplicate, X);
    await vi.advanceTimersByTimeAsync(GRACE * 10);
    expect(run.stopped).toEqual([]);
    expect(owners.owns(X, "s-1")).toBe(true);
  });

  it.each([
    { case: "cannot be asked (throws)", alive: () => Promise.reject(new Error("socket gone")) },
    { case: "answers no", alive: () => Promise.resolve(false) },
  ])("hands the id to the newcomer when its holder $case", async ({ alive }) => {
    const { tabs } = host();
    await tabs.claim(holder(alive), X);
    expect(await tabs.claim(holder(), X)).toBe(X);
  });

  it("hands the id of a gone holder to one newcomer only when two present it at once", async () => {
    const { tabs } = host();
    let answer: (alive: boolean) => void = () => undefined;
    const answered = new Promise<boolean>((resolve) => (answer = resolve));
    const old = holder(() => answered);
    await tabs.claim(old, X);
    const first = tabs.claim(holder(), X);
    const second = tabs.claim(holder(), X);
    answer(false);
    const ids = await Promise.all([first, second]);
    expect(ids.filter((id) => id === X)).toHaveLength(1);
    expect(new Set(ids).size).toBe(2);
  });
});
