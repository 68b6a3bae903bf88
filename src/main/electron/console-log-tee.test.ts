import { describe, expect, it, vi } from "vitest";
import { teeConsoleToLog, type LogSink } from "./console-log-tee.ts";

function fakeConsole() {
  const terminal: string[] = [];
  const record =
    (level: string) =>
    (...args: unknown[]) =>
      terminal.push(`${level}: ${args.map(String).join(" ")}`);
  const target = {
    debug: record("debug"),
    info: record("info"),
    log: record("log"),
    warn: record("warn"),
    error: record("error"),
  } as unknown as Console;
  return { target, terminal };
}

const clock = () => new Date("2026-11-25T09:41:21.000Z");

describe("teeConsoleToLog", () => {
  it("copies every console level into the file, timestamped and formatted, and still prints it", () => {
    const { target, terminal } = fakeConsole();
    const lines: string[] = [];
    teeConsoleToLog(target, { write: (text) => lines.push(text) }, clock);
    target.log("started %s", "Lathe", { pid: 1 });
    target.warn("careful");
    target.error("failed:", new Error("boom"));
    target.debug("details");
    target.info("ready");
    expect(terminal).toEqual([
      "log: started %s Lathe [object Object]",
      "warn: careful",
      "error: failed: Error: boom",
      "debug: details",
      "info: ready",
    ]);
    expect(lines[0]).toBe("2026-11-25T09:41:21.000Z log   started Lathe { pid: 1 }\n");
    expect(lines[1]).toBe("2026-11-25T09:41:21.000Z warn  careful\n");
    expect(lines[2]).toMatch(/^2026-11-25T09:41:21\.000Z error failed: Error: boom\n {4}at /);
    expect(lines.slice(3)).toEqual([
      "2026-11-25T09:41:21.000Z debug details\n",
      "2026-11-25T09:41:21.000Z info  ready\n",
    ]);
  });

  it("says once on the terminal that the file failed, then keeps logging to the terminal only", () => {
    const { target, terminal } = fakeConsole();
    const write = vi.fn<LogSink["write"]>(() => {
      throw new Error("ENOSPC: no space left on device");
    });
    teeConsoleToLog(target, { write }, clock);
    target.log("one");
    target.log("two");
    expect(write).toHaveBeenCalledTimes(1);
    expect(terminal).toEqual([
      "log: one",
      "error: lathe: the log file cannot be written; logging to the terminal only: Error: ENOSPC: no space left on device",
      "log: two",
    ]);
  });

  it("puts console back as it was", () => {
    const { target } = fakeConsole();
    const before = { log: target.log, error: target.error };
    const lines: string[] = [];
    const restore = teeConsoleToLog(target, { write: (text) => lines.push(text) }, clock);
    expect(target.log).not.toBe(before.log);
    restore();
    target.log("after");
    expect(target.log).toBe(before.log);
    expect(target.error).toBe(before.error);
    expect(lines).toEqual([]);
  });
});
