import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RotatingLogFile } from "./rotating-log-file.ts";

let dir: string;
let logs: RotatingLogFile[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "lathe-log-"));
});

afterEach(() => {
  for (const log of logs) log.close();
  logs = [];
  rmSync(dir, { recursive: true, force: true });
});

function open(options: { maxBytes?: number; keep?: number; file?: string } = {}): RotatingLogFile {
  const log = new RotatingLogFile({ file: options.file ?? path.join(dir, "logs", "lathe.log"), ...options });
  logs.push(log);
  return log;
}

const read = (name: string) => readFileSync(path.join(dir, "logs", name), "utf8");

describe("RotatingLogFile", () => {
  it("creates its folder and appends to what an earlier run wrote", () => {
    const first = open();
    first.write("one\n");
    first.close();
    open().write("two\n");
    expect(read("lathe.log")).toBe("one\ntwo\n");
  });

  it.skipIf(process.platform === "win32")(
    "creates the log and every rotated file readable by their owner only (skipped on Windows: no POSIX modes)",
    () => {
      const log = open({ maxBytes: 10, keep: 2 });
      for (const line of ["aaaa\n", "bbbb\n", "cccc\n"]) log.write(line);
      const mode = (name: string): number => statSync(path.join(dir, "logs", name)).mode & 0o777;
      expect(mode("lathe.log")).toBe(0o600);
      expect(mode("lathe.1.log")).toBe(0o600);
      expect(statSync(path.join(dir, "logs")).mode & 0o777).toBe(0o700);
    },
  );

  it.skipIf(process.platform === "win32")(
    "makes private what an older Lathe left readable by others: the folder, the log, the rotated files",
    () => {
      const folder = path.join(dir, "logs");
      mkdirSync(folder, { mode: 0o755 });
      chmodSync(folder, 0o755);
      for (const name of ["lathe.log", "lathe.1.log"]) {
        writeFileSync(path.join(folder, name), "old\n", { mode: 0o644 });
        chmodSync(path.join(folder, name), 0o644);
      }
      const mode = (name: string): number => statSync(path.join(folder, name)).mode & 0o777;
      // Positive control: as an older Lathe left them.
      expect([mode("."), mode("lathe.log"), mode("lathe.1.log")]).toEqual([0o755, 0o644, 0o644]);
      open({ keep: 2 }).write("new\n");
      expect([mode("."), mode("lathe.log"), mode("lathe.1.log")]).toEqual([0o700, 0o600, 0o600]);
      expect(read("lathe.log")).toBe("old\nnew\n");
    },
  );

  it("starts a new file before one passes the cap, keeping the older ones numbered newest first", () => {
    const log = open({ maxBytes: 10, keep: 2 });
    for (const line of ["aaaa\n", "bbbb\n", "cccc\n", "dddd\n", "eeee\n", "ffff\n", "gggg\n"])
      log.write(line);
    expect(read("lathe.log")).toBe("gggg\n");
    expect(read("lathe.1.log")).toBe("eeee\nffff\n");
    expect(read("lathe.2.log")).toBe("cccc\ndddd\n");
    // The oldest lines went away with the third file: the logs never hold more than (keep + 1) × cap.
    expect(readdirSync(path.join(dir, "logs")).sort()).toEqual(["lathe.1.log", "lathe.2.log", "lathe.log"]);
  });

  it("counts what an earlier run left in the file against the cap", () => {
    const file = path.join(dir, "logs", "lathe.log");
    open({ file }).close();
    writeFileSync(file, "123456789\n");
    open({ file, maxBytes: 12 }).write("abc\n");
    expect(read("lathe.1.log")).toBe("123456789\n");
    expect(read("lathe.log")).toBe("abc\n");
  });

  it("writes a line longer than the cap whole, in a file of its own", () => {
    const log = open({ maxBytes: 8, keep: 1 });
    log.write("short\n");
    log.write("a line much longer than eight bytes\n");
    expect(read("lathe.log")).toBe("a line much longer than eight bytes\n");
    expect(read("lathe.1.log")).toBe("short\n");
  });

  it("measures the cap in bytes, not characters", () => {
    const log = open({ maxBytes: 8, keep: 1 });
    log.write("ééé\n"); // 7 bytes
    log.write("é\n"); // 3 more: past the cap
    expect(read("lathe.1.log")).toBe("ééé\n");
    expect(read("lathe.log")).toBe("é\n");
  });

  it.each([
    { maxBytes: 0, keep: 1, message: /maxBytes must be a positive/ },
    { maxBytes: 1.5, keep: 1, message: /maxBytes must be a positive/ },
    { maxBytes: 10, keep: 0, message: /keep must be at least 1/ },
  ])("refuses maxBytes $maxBytes, keep $keep", ({ maxBytes, keep, message }) => {
    expect(() => open({ maxBytes, keep })).toThrow(message);
    expect(existsSync(path.join(dir, "logs"))).toBe(false);
  });

  it("refuses writes once closed, saying so", () => {
    const log = open();
    log.close();
    expect(() => log.write("late\n")).toThrow(/is closed/);
  });

  it("throws when its folder cannot be created (a file is in the way)", () => {
    writeFileSync(path.join(dir, "logs"), "not a folder");
    expect(() => open()).toThrow();
  });
});
