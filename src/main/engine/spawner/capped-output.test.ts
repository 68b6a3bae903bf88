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
    { chunks: ["\r", "\r", "\n"], want: "\r\n" },
    { chunks: ["progress 10%\rprogress 90%\r", "done\n"], want: "progress 10%\rprogress 90%\rdone\n" },
    { chunks: ["ends with a carriage return\r"], want: "ends with a carriage return\r" },
    { chunks: ["\r\n\r\n", "\r\n"], want: "\n\n\n" },
  ])("turns terminal newlines into \\n across chunks: %j", async ({ chunks, want }) => {
    const { output } = capture(1024);
    for (const chunk of chunks) output.write(Buffer.from(chunk));
    const lines = want.split("\n").length - (want.endsWith("\n") ? 1 : 0);
    expect(await output.finish()).toEqual({
      text: want,
      totalBytes: Buffer.byteLength(want),
      totalLines: lines,
    });
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
    expect(await readFile(path.join(dir, "sidecar.txt"), "utf8")).toBe(`${kept}\n[note]\n`);
  });

  it("keeps output up to the cap in memory only", async () => {
    const { output, flow } = capture(10);
    output.write(Buffer.from("0123456789"));
    expect(await output.finish()).toEqual({ text: "0123456789", totalBytes: 10, totalLines: 1 });
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
