// Who owns a chat run across the tabs of a host, on a fake clock: the tab that started it; when it
// goes away its run waits a grace period for that tab to come back (a reload), no other tab takes
// it over, and what is still waiting at the end is stopped, saying why.
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
  /** Owners with tab `tab` connected and owning `run`. */
  function owning(tab: string, run: ReturnType<typeof work>, graceMs = 5_000) {
    const owners = new RunOwners(graceMs);
    owners.arrive(tab);
    owners.own(tab, run);
    return owners;
  }

  it("stops a run its tab left once the grace has passed, saying the tab was closed", async () => {
    const run = work("s-1");
    const owners = owning("tab-a", run);
    owners.leave("tab-a");
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

  it("keeps the run of a tab that comes back within the grace (a reload), and gives it a whole grace again", async () => {
    const run = work("s-1");
    const owners = owning("tab-a", run);
    owners.leave("tab-a");
    await vi.advanceTimersByTimeAsync(3_000);
    owners.arrive("tab-a");
    expect(owners.owns("tab-a", "s-1")).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(run.stopped).toEqual([]);
    expect(owners.count("tab-a")).toBe(1);
    owners.leave("tab-a");
    await vi.advanceTimersByTimeAsync(4_999);
    expect(run.stopped).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(run.stopped.map((e) => e.message)).toEqual([TAB_CLOSED]);
  });

  it("lets no other tab take a waiting run over: it stops at the end of the grace all the same", async () => {
    const run = work("s-1");
    const owners = owning("tab-a", run);
    owners.arrive("tab-b");
    owners.leave("tab-a");
    await vi.advanceTimersByTimeAsync(2_000);
    owners.arrive("tab-c");
    expect(owners.owns("tab-b", "s-1")).toBe(false);
    expect(owners.owns("tab-c", "s-1")).toBe(false);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(run.stopped.map((e) => e.message)).toEqual([TAB_CLOSED]);
  });

  it("makes work started for a tab that already left wait for it like the tab's others", async () => {
    const owners = new RunOwners(5_000);
    owners.arrive("tab-a");
    owners.leave("tab-a");
    const run = work("s-1");
    owners.own("tab-a", run);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(run.stopped.map((e) => e.message)).toEqual([TAB_CLOSED]);
  });

  it("leaves a tab that owns nothing with nothing to stop", async () => {
    const run = work("s-1");
    const owners = owning("tab-a", run);
    owners.arrive("watcher");
    owners.leave("watcher");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(run.stopped).toEqual([]);
    expect(owners.owns("tab-a", "s-1")).toBe(true);
  });

  it("forgets a run that ended: its grace timer stops nothing later", async () => {
    const run = work("s-1");
    const owners = owning("tab-a", run);
    owners.leave("tab-a");
    run.end();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(run.stopped).toEqual([]);
    expect(owners.busy).toBe(false);
  });

  it("stops every run at once when the host closes, owned or waiting, and waits for them", async () => {
    const owners = new RunOwners(600_000);
    const [kept, waiting] = [work("s-1"), work("s-2")];
    owners.arrive("a");
    owners.arrive("b");
    owners.own("a", kept);
    owners.own("b", waiting);
    owners.leave("b");
    await owners.close();
    for (const run of [kept, waiting]) expect(run.stopped.map((e) => e.message)).toEqual([HOST_CLOSED]);
  });
});
