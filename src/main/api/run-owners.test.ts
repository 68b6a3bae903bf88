// Who owns a chat run across the UIs of a host, on a fake clock: the UI that started it, until it
// goes away; then nobody for a grace period, during which a UI that opens the chat adopts it; what
// nobody adopts is stopped, saying why.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RunStopped, type Engine } from "../engine/index.ts";
import { HOST_CLOSED, RunOwners, TAB_CLOSED } from "./run-owners.ts";

const engine = {} as Engine;

/** A run that ends when stopped (or when `end` is called), remembering why it was stopped. */
function work(sessionId: string) {
  let end: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (end = resolve));
  const stopped: Error[] = [];
  return {
    sessionId,
    engine,
    done,
    stopped,
    end,
    stop: (reason: Error) => {
      stopped.push(reason);
      end();
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("RunOwners", () => {
  it("stops a run its UI left once the grace has passed, saying the tab was closed", async () => {
    const owners = new RunOwners(5_000);
    const tab = {};
    const run = work("s-1");
    owners.own(tab, run);
    owners.leave(tab);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(run.stopped).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(run.stopped).toHaveLength(1);
    expect(RunStopped.isRunStopped(run.stopped[0])).toBe(true);
    expect(run.stopped[0]!.message).toBe(TAB_CLOSED);
    await run.done;
    await vi.advanceTimersByTimeAsync(0);
    expect(owners.busy).toBe(false);
  });

  it("lets a UI that opens the chat within the grace adopt the run: it is not stopped, and is that UI's", async () => {
    const owners = new RunOwners(5_000);
    const [tab, reloaded] = [{}, {}];
    const run = work("s-1");
    owners.own(tab, run);
    owners.leave(tab);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(owners.adopt(reloaded, "s-1")).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(run.stopped).toEqual([]);
    expect(owners.count(reloaded)).toBe(1);
    expect(owners.count(tab)).toBe(0);
    // The adopter leaving starts a whole grace again.
    owners.leave(reloaded);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(run.stopped).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(run.stopped.map((e) => e.message)).toEqual([TAB_CLOSED]);
  });

  it.each([
    { case: "another session", session: "s-2", adopts: false },
    { case: "a UI whose owner is still there", session: "s-1", adopts: false },
  ])("adopts nothing from $case", async ({ session, adopts }) => {
    const owners = new RunOwners(5_000);
    const [tab, watcher] = [{}, {}];
    const run = work("s-1");
    owners.own(tab, run);
    if (session === "s-2") owners.leave(tab);
    expect(owners.adopt(watcher, session)).toBe(adopts);
    expect(owners.owns(tab, "s-1")).toBe(session !== "s-2");
    await vi.advanceTimersByTimeAsync(10_000);
    // Still the starter's when it stayed; stopped when it left and nobody opened s-1.
    expect(run.stopped.length).toBe(session === "s-2" ? 1 : 0);
  });

  it("leaves a UI that owns nothing with nothing to stop", async () => {
    const owners = new RunOwners(5_000);
    const [tab, watcher] = [{}, {}];
    const run = work("s-1");
    owners.own(tab, run);
    owners.leave(watcher);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(run.stopped).toEqual([]);
    expect(owners.owns(tab, "s-1")).toBe(true);
  });

  it("forgets a run that ended: its grace timer stops nothing later", async () => {
    const owners = new RunOwners(5_000);
    const tab = {};
    const run = work("s-1");
    owners.own(tab, run);
    owners.leave(tab);
    run.end();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(run.stopped).toEqual([]);
    expect(owners.busy).toBe(false);
  });

  it("stops every run at once when the host closes, owned or waiting, and waits for them", async () => {
    const owners = new RunOwners(600_000);
    const [a, b] = [{}, {}];
    const [kept, waiting] = [work("s-1"), work("s-2")];
    owners.own(a, kept);
    owners.own(b, waiting);
    owners.leave(b);
    await owners.close();
    for (const run of [kept, waiting]) expect(run.stopped.map((e) => e.message)).toEqual([HOST_CLOSED]);
  });
});
