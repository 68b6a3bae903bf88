import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpServerLog } from "./mcp-server-log.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-mcp-log-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("McpServerLog", () => {
  it("appends stderr to the file and keeps whole lines as the tail, even when chunks split lines", async () => {
    const file = path.join(dir, "logs", "mcp-x.log");
    const log = new McpServerLog(file, { tailLines: 3 });
    log.write("one\ntw");
    log.write("o\nthree\nfour\nfi");
    expect(log.tail(10)).toEqual(["two", "three", "four", "fi"]);
    expect(log.lastOutput()).toBe("four");
    log.note("exited");
    expect(log.tail(2)).toEqual(["fi", expect.stringMatching(/^\[lathe .*\] exited$/)]);
    await log.flush();
    expect(await readFile(file, "utf8")).toMatch(/^one\ntwo\nthree\nfour\nfi\n\[lathe .*\] exited\n$/);
  });

  it.skipIf(process.platform === "win32")(
    "makes the logs folder it creates readable by the user alone, as the log file",
    async () => {
      const file = path.join(dir, "logs", "mcp-x.log");
      const log = new McpServerLog(file);
      log.note("starting");
      await log.flush();
      expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    },
  );

  it("quotes at most the start of a huge line in messages and the tail; the file keeps all of it", async () => {
    const file = path.join(dir, "mcp-huge.log");
    const log = new McpServerLog(file, { maxBytes: 10 * 1024 * 1024 });
    const huge = "x".repeat(5_000_000);
    log.write(huge.slice(0, 2_000_000));
    log.write(huge.slice(2_000_000));
    // Still being written (no newline yet), then complete.
    expect(log.lastOutput()).toMatch(/^x{300}… \(4999700 more characters in the log\)$/);
    log.write("\n");
    expect(log.lastOutput()).toMatch(/^x{300}… \(4999700 more characters in the log\)$/);
    expect(log.tail(1)[0]?.length).toBeLessThan(5_000);
    await log.flush();
    expect((await stat(file)).size).toBe(5_000_001);
  });

  it("keeps the file under its cap by moving the old content to .1", async () => {
    const file = path.join(dir, "mcp-big.log");
    const log = new McpServerLog(file, { maxBytes: 1000 });
    for (let i = 0; i < 50; i++) log.write(`${"x".repeat(99)}\n`);
    await log.flush();
    expect((await stat(file)).size).toBeLessThanOrEqual(1000);
    expect((await stat(`${file}.1`)).size).toBeLessThanOrEqual(1000);
  });

  it("holds at most a file's worth of output waiting when a server writes faster than the disk, and says what it left out", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const file = path.join(dir, "mcp-flood.log");
    const mb = 1024 * 1024;
    const log = new McpServerLog(file, { maxBytes: mb });
    gc();
    const before = process.memoryUsage().heapUsed;
    // 300 MB in one go, as a flooding server's stderr arrives between two writes of the file.
    for (let i = 0; i < 1200; i++) log.write(`${`chunk ${i} `.padEnd(mb / 4 - 1, "x")}\n`);
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(100 * mb);
    log.note("exited");
    await log.flush();
    const text = await readFile(file, "utf8");
    const older = await readFile(`${file}.1`, "utf8");
    expect((await stat(file)).size).toBeLessThanOrEqual(mb);
    expect((await stat(`${file}.1`)).size).toBeLessThanOrEqual(mb);
    // What came last is kept, and a note says how much did not make it into the file.
    expect(text).toMatch(/chunk 1199 x+\n\[lathe .*\] exited\n$/);
    expect(`${older}${text}`).toMatch(
      /\[lathe .*\] 29\d(\.\d)? MB of the server's output \(or Lathe's notes about it\) were not written here: it wrote faster than its log could be saved\n/,
    );
    expect(log.tail(1)[0]).toMatch(/\] exited$/);
  });

  it("holds a bounded number of Lathe's notes waiting too (a server whose every line is a transport error)", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const file = path.join(dir, "mcp-notes.log");
    const log = new McpServerLog(file, { maxBytes: 64 * 1024 });
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200_000; i++) log.note(`transport error: line ${i} ${"is not JSON ".repeat(10)}`);
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(20 * 1024 * 1024);
    await log.flush();
    expect(await readFile(file, "utf8")).toMatch(/transport error: line 199999 .*\n$/);
  });

  it("says in the tail when the file cannot be written, instead of failing the server", async () => {
    const blocker = path.join(dir, "not-a-folder");
    await (await import("node:fs/promises")).writeFile(blocker, "");
    const log = new McpServerLog(path.join(blocker, "mcp-x.log"));
    log.write("hello\n");
    await log.flush();
    expect(log.tail(5)).toEqual(["hello", expect.stringContaining("cannot write")]);
  });
});
