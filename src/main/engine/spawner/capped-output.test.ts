import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CappedOutput } from "./capped-output.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-capped-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function capture(maxBytes: number) {
  const flow = { pauses: 0, resumes: 0, sidecars: 0 };
  const output = new CappedOutput({
    maxBytes,
    openSidecar: async () => path.join(dir, `sidecar-${++flow.sidecars}.txt`),
    pause: () => flow.pauses++,
    resume: () => flow.resumes++,
  });
  return { output, flow };
}

describe("CappedOutput", () => {
  it.each([
    { chunks: ["a\r\nb"], want: "a\nb" },
    { chunks: ["a\r", "\nb"], want: "a\nb" },
    { chunks: ["a\r", "", "\nb"], want: "a\nb" },
    { chunks: ["\r", "\r", "\n"], want: "\n" },
    { chunks: ["progress 10%\rprogress 90%\r", "done\n"], want: "doneress 90%\n" },
    { chunks: ["progress 10%\rprogress 90%\r", "\x1b[Kdone\n"], want: "done\n" },
    { chunks: ["ends with a carriage return\r"], want: "ends with a carriage return" },
    { chunks: ["\r\n\r\n", "\r\n"], want: "\n\n\n" },
    { chunks: ["\x1b[3", "1mred\x1b[0m\n"], want: "red\n" },
    { chunks: ["\x1b]0;title\x07a\x00b\x07c\n"], want: "abc\n" },
  ])("keeps the output as the screen shows it, across chunks: %j", async ({ chunks, want }) => {
    const { output } = capture(1024);
    for (const chunk of chunks) output.write(Buffer.from(chunk));
    const lines = want.split("\n").length - (want.endsWith("\n") ? 1 : 0);
    const { text, totalBytes, totalLines, printedBytes } = await output.finish();
    expect({ text, totalLines }).toEqual({ text: want, totalLines: lines });
    expect(totalBytes).toBeGreaterThanOrEqual(Buffer.byteLength(want));
    expect(printedBytes).toBe(Buffer.byteLength(chunks.join("").replaceAll("\r\n", "\n")));
  });

  // NUL bytes (a binary file's zero pages), bells, DEL show nothing: the cap, the counts and the
  // cut are of what the model reads, or it is told of a cut with nothing on either side of it.
  it.each([
    ["300 KB of NUL bytes, then a line", [Buffer.alloc(300 * 1024), Buffer.from("end\n")], "end\n"],
    [
      "text with a control after each letter",
      [Buffer.from("a\x00".repeat(150 * 1024))],
      "a".repeat(150 * 1024),
    ],
    ["bells and DEL between lines", [Buffer.from("x\x07\x7f\n".repeat(60 * 1024))], "x\n".repeat(60 * 1024)],
  ])("counts what the screen shows, not controls that show nothing: %s", async (_what, chunks, want) => {
    const { output } = capture(200 * 1024);
    for (const chunk of chunks) output.write(chunk);
    const result = await output.finish();
    expect(result.text).toBe(want);
    expect(result.totalBytes).toBe(Buffer.byteLength(want));
    expect(result.sidecarPath).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });

  it("applies the cap to the output as the model reads it: bytes that are not text count as U+FFFD", async () => {
    // 0xFF is never part of a UTF-8 character: each one reads as U+FFFD, three bytes.
    const { output } = capture(1000);
    output.write(Buffer.alloc(600, 0xff));
    const result = await output.finish();
    expect(result.totalBytes).toBe(1800);
    expect(result.sidecarPath).toBeDefined();
    expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(1000);
    expect(result.text).toBe("\uFFFD".repeat(333));
    expect((await readFile(result.sidecarPath as string)).equals(Buffer.alloc(600, 0xff))).toBe(true);
  });

  it.each([
    [
      "a character split across chunks",
      [Buffer.from([0x61, 0xe2, 0x82]), Buffer.from([0xac, 0x0a])],
      "a€\n",
      5,
    ],
    ["a character cut off by the end", [Buffer.from([0x61, 0xe2, 0x82])], "a\uFFFD", 4],
    ["a stray continuation byte", [Buffer.from([0x61, 0x80, 0x62])], "a\uFFFDb", 5],
  ])("reads the output as UTF-8 across chunks: %s", async (_what, chunks, want, bytes) => {
    const { output } = capture(1024);
    for (const chunk of chunks) output.write(chunk);
    const result = await output.finish();
    expect(result.text).toBe(want);
    expect(result.totalBytes).toBe(bytes);
  });

  it("applies the cap to the output as shown: a long progress line that shows short needs no sidecar", async () => {
    const { output, flow } = capture(1024);
    for (let i = 0; i <= 1000; i++)
      output.write(Buffer.from(`\r\x1b[K\x1b[32m${"#".repeat(i % 60)}\x1b[0m ${i / 10}%`));
    output.write(Buffer.from("\ndone\n"));
    const result = await output.finish();
    expect(result.text).toBe(`${"#".repeat(1000 % 60)} 100%\ndone\n`);
    expect(result.sidecarPath).toBeUndefined();
    expect(result.printedBytes).toBeGreaterThan(1024);
    // The sidecar it started while that was not yet known is gone.
    expect(await readdir(dir)).toEqual([]);
    expect(flow.sidecars).toBe(1);
  });

  it("keeps every byte as printed in the sidecar, and the head and tail as shown", async () => {
    const { output } = capture(64);
    const printed = Array.from(
      { length: 100 },
      (_, i) => `\x1b[1mline ${i}\x1b[0m 50%\r\x1b[Kline ${i} ok\n`,
    );
    for (const line of printed) output.write(Buffer.from(line));
    const result = await output.finish();
    const shown = Array.from({ length: 100 }, (_, i) => `line ${i} ok\n`).join("");
    expect(await readFile(result.sidecarPath as string, "utf8")).toBe(printed.join(""));
    expect(shown.startsWith(result.text)).toBe(true);
    expect(result.text).toMatch(/^line 0 ok\nline 1 ok\n/);
    expect(result.tail).toBe(shown);
    expect(result.totalBytes).toBe(Buffer.byteLength(shown));
    expect(result.totalLines).toBe(100);
    expect(result.printedBytes).toBe(Buffer.byteLength(printed.join("")));
  });

  it("keeps at most maxTotalBytes, says so once, and still takes Lathe's closing note", async () => {
    let overflows = 0;
    const output = new CappedOutput({
      maxBytes: 16,
      maxTotalBytes: 1000,
      overflow: () => overflows++,
      openSidecar: async () => path.join(dir, "sidecar.txt"),
      pause: () => undefined,
      resume: () => undefined,
    });
    // 10,000 bytes of "y\n" in 64-byte writes, as `yes` gives them.
    for (let i = 0; i < 10_000 / 64; i++) output.write(Buffer.from("y\n".repeat(32)));
    expect(overflows).toBe(1);
    output.writeNote("\n[note]\n");
    const result = await output.finish();
    const kept = "y\n".repeat(500);
    expect(result.totalBytes).toBe(1000 + "\n[note]\n".length);
    expect(result.printedBytes).toBe(1000 + "\n[note]\n".length);
    expect(await readFile(path.join(dir, "sidecar.txt"), "utf8")).toBe(`${kept}\n[note]\n`);
  });

  it("keeps output up to the cap in memory only", async () => {
    const { output, flow } = capture(10);
    output.write(Buffer.from("0123456789"));
    expect(await output.finish()).toEqual({
      text: "0123456789",
      totalBytes: 10,
      totalLines: 1,
      printedBytes: 10,
    });
    expect(flow.sidecars).toBe(0);
  });

  it("streams everything to one sidecar past the cap and cuts the head after its last line", async () => {
    const { output, flow } = capture(16);
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}\r\n`);
    for (const line of lines) output.write(Buffer.from(line));
    const result = await output.finish();
    const full = lines.join("").replaceAll("\r\n", "\n");
    expect(result.text).toBe("line 0\nline 1\n");
    expect(result.totalBytes).toBe(Buffer.byteLength(full));
    expect(result.totalLines).toBe(2000);
    expect(await readFile(result.sidecarPath as string, "utf8")).toBe(full);
    expect(flow.sidecars).toBe(1);
    expect(flow.resumes).toBeGreaterThanOrEqual(1);
  });

  it.each([
    { text: "ab€€€", max: 6, head: "ab€" },
    { text: "ab€€€", max: 5, head: "ab€" },
    { text: "ab€€€", max: 4, head: "ab" },
    { text: "🎉🎉", max: 7, head: "🎉" },
    { text: "x\n" + "y".repeat(40), max: 20, head: "x\n" + "y".repeat(18) },
  ])("never splits a character in the head: $text at $max bytes", async ({ text, max, head }) => {
    const { output } = capture(max);
    for (const byte of Buffer.from(text)) output.write(Buffer.from([byte]));
    const result = await output.finish();
    expect(result.text).toBe(head);
    expect(await readFile(result.sidecarPath as string, "utf8")).toBe(text);
  });

  it("reports a sidecar that cannot be written instead of silently dropping output", async () => {
    const output = new CappedOutput({
      maxBytes: 4,
      openSidecar: async () => path.join(dir, "no-such-folder", "sidecar.txt"),
      pause: () => undefined,
      resume: () => undefined,
    });
    output.write(Buffer.from("more than four bytes"));
    await expect(output.finish()).rejects.toThrow(/could not be saved in full.*ENOENT/);
  });

  it("writes the sidecar under a temporary name until the output is complete", async () => {
    const { output } = capture(4);
    output.write(Buffer.from("0123456789\n".repeat(100)));
    await expect.poll(() => readdir(dir)).toEqual([`sidecar-1.txt.${process.pid}.partial`]);
    const result = await output.finish();
    expect(await readdir(dir)).toEqual(["sidecar-1.txt"]);
    expect(result.sidecarPath).toBe(path.join(dir, "sidecar-1.txt"));
  });

  it("removes the half-written sidecar of an aborted command", async () => {
    const { output } = capture(4);
    output.write(Buffer.from("0123456789\n".repeat(100)));
    await expect.poll(() => readdir(dir)).toHaveLength(1);
    output.discard();
    // At once: the spawner may exit right after.
    expect(await readdir(dir)).toEqual([]);
  });
});
