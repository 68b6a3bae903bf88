import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, symlink } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../engine.ts";
import { OUTPUT_LIMITS } from "../tools/truncation.ts";
import type { ReadData } from "./read.ts";
import { openTestWorkspace, type TestWorkspace } from "../../../../test/support/test-workspace.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";

let ws: TestWorkspace;
beforeEach(async () => {
  ws = await openTestWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

async function read(args: unknown): Promise<ReadData> {
  return outputOf<ReadData>(await ws.session.call("read", args));
}

describe("read", () => {
  it("returns a whole file's text unchanged, with no line-number prefixes", async () => {
    const text = "first line\n\tsecond\r\nthird without newline";
    await ws.put("src/a.txt", text);
    const data = await read({ path: "src/a.txt" });
    expect(data).toEqual({ path: "src/a.txt", content: text, start_line: 1, end_line: 3, total_lines: 3 });
  });

  it.each([
    ["a\nb\n", 2],
    ["a\nb", 2],
    ["", 0],
    ["\n", 1],
    ["x", 1],
  ])("counts the lines of %j as %i", async (text, lines) => {
    await ws.put("f.txt", text);
    const data = await read({ path: "f.txt" });
    expect(data.total_lines).toBe(lines);
    expect(data.content).toBe(text);
    expect(data.end_line - data.start_line + 1).toBe(lines);
  });

  it("returns the exact text of a line range, keeping CRLF terminators", async () => {
    await ws.put("crlf.txt", "one\r\ntwo\r\nthree\r\nfour\r\n");
    const data = await read({ path: "crlf.txt", offset: 2, limit: 2 });
    expect(data).toEqual({
      path: "crlf.txt",
      content: "two\r\nthree\r\n",
      start_line: 2,
      end_line: 3,
      total_lines: 4,
    });
  });

  it("clips a limit that runs past the end to the last line", async () => {
    await ws.put("f.txt", "1\n2\n3");
    const data = await read({ path: "f.txt", offset: 3, limit: 50 });
    expect(data).toMatchObject({ content: "3", start_line: 3, end_line: 3, total_lines: 3 });
  });

  it("refuses an offset past the end and says how many lines the file has", async () => {
    await ws.put("f.txt", "1\n2\n3\n");
    const message = errorOf(await ws.session.call("read", { path: "f.txt", offset: 9 }));
    expect(message).toContain("offset 9");
    expect(message).toContain("has 3 lines");
  });

  it("refuses a binary file, naming its size", async () => {
    const bytes = Buffer.alloc(5000, 0x41);
    bytes[100] = 0;
    await ws.put("image.bin", bytes);
    const message = errorOf(await ws.session.call("read", { path: "image.bin" }));
    expect(message).toMatch(/binary/);
    expect(message).toContain("5000 bytes");
  });

  it("treats a NUL byte after the first 8 KB as text", async () => {
    const text = "a".repeat(9000) + "\0tail";
    await ws.put("late-nul.txt", text);
    expect((await read({ path: "late-nul.txt" })).content).toBe(text);
  });

  it("decodes UTF-16LE with a BOM, and drops the BOM of UTF-8 files", async () => {
    await ws.put(
      "u16.txt",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo\r\nwörld\r\n", "utf16le")]),
    );
    await ws.put(
      "bom.txt",
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("ünïcode\n", "utf8")]),
    );
    expect(await read({ path: "u16.txt" })).toMatchObject({ content: "héllo\r\nwörld\r\n", total_lines: 2 });
    expect((await read({ path: "bom.txt" })).content).toBe("ünïcode\n");
  });

  it.each([
    ["UTF-16LE with CRLF", Buffer.from("Name,Wert\r\nä,1\r\n", "utf16le"), "Name,Wert\r\nä,1\r\n", 2],
    ["UTF-16BE", Buffer.from("key=välue\n", "utf16le").swap16(), "key=välue\n", 1],
  ])("decodes %s without a BOM (as Windows tools write it)", async (_name, bytes, content, lines) => {
    await ws.put("export.csv", bytes);
    expect(await read({ path: "export.csv" })).toMatchObject({ content, total_lines: lines });
  });

  it.each([
    ["a PNG", Buffer.from("89504e470d0a1a0a0000000d4948445200000010000000100806000000", "hex")],
    ["gzip", gzipSync(Buffer.from("compressed text ".repeat(100)))],
    ["a file of zeros", Buffer.alloc(512)],
    ["UTF-16LE holding a NUL character", Buffer.from("a\u0000b\n", "utf16le")],
  ])("still refuses %s as binary", async (_name, bytes) => {
    await ws.put("blob.bin", bytes);
    expect(errorOf(await ws.session.call("read", { path: "blob.bin" }))).toMatch(/is a binary file/);
    // …and names what does find text in it (grep.test.ts: a file given as path is searched as text).
    expect(errorOf(await ws.session.call("read", { path: "blob.bin" }))).toMatch(/give it to grep as path/);
  });

  it("decodes bytes that are not valid UTF-8 as latin1", async () => {
    await ws.put("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect((await read({ path: "latin1.txt" })).content).toBe("café\n");
  });

  it("refuses a directory and a FIFO without hanging", async () => {
    await mkdir(ws.abs("folder"));
    expect(errorOf(await ws.session.call("read", { path: "folder" }))).toMatch(/is a directory/);
    execFileSync("mkfifo", [ws.abs("pipe")]);
    expect(errorOf(await ws.session.call("read", { path: "pipe" }))).toMatch(/not a regular file/);
  });

  it("refuses a file over 100 MB without loading it, naming its size", async () => {
    execFileSync("truncate", ["-s", "101M", ws.abs("huge.log")]);
    const message = errorOf(await ws.session.call("read", { path: "huge.log" }));
    expect(message).toContain("101.0 MB");
    expect(message).toContain("grep");
  });

  it("says the file was not found for a missing path", async () => {
    expect(errorOf(await ws.session.call("read", { path: "nope.txt" }))).toMatch(/not found: nope\.txt/);
  });

  it("records the file's stamp in the session, even for a partial read", async () => {
    const file = await ws.put("f.txt", "1\n2\n3\n");
    await read({ path: "f.txt", offset: 2, limit: 1 });
    const stamp = ws.session.state.lastRead(file);
    expect(stamp).toMatchObject({ size: 6, sha256: createHash("sha256").update("1\n2\n3\n").digest("hex") });
  });

  it("reads through a symlink inside the root and shows the real path", async () => {
    await ws.put("real/target.txt", "inside\n");
    execFileSync("ln", ["-s", "real/target.txt", ws.abs("alias.txt")]);
    expect(await read({ path: "alias.txt" })).toMatchObject({ path: "real/target.txt", content: "inside\n" });
  });

  describe("over 200 KB", () => {
    const line = (i: number): string => `line ${String(i).padStart(6, "0")} ${"x".repeat(90)}\n`;
    const lines = 4000; // ~400 KB
    const text = Array.from({ length: lines }, (_, i) => line(i + 1)).join("");

    it("returns a head that ends on a whole line, and a sidecar with the whole range that read can open", async () => {
      await ws.put("big.txt", text);
      const envelope = await ws.session.call("read", { path: "big.txt" });
      const data = outputOf<ReadData>(envelope);
      expect(envelope.metadata.truncated).toBe(true);
      expect(Buffer.byteLength(data.content)).toBeLessThanOrEqual(OUTPUT_LIMITS.readBytes);
      expect(data.content.endsWith("\n")).toBe(true);
      expect(text.startsWith(data.content)).toBe(true);
      expect(data.end_line).toBe(data.content.split("\n").length - 1);
      expect(data.content.endsWith(line(data.end_line))).toBe(true);
      expect(data.total_lines).toBe(lines);

      const sidecar = envelope.metadata.output_path as string;
      expect(await readFile(sidecar, "utf8")).toBe(text);

      const again = await ws.session.call("read", { path: sidecar, offset: data.end_line + 1, limit: 2 });
      expect(outputOf<ReadData>(again).content).toBe(line(data.end_line + 1) + line(data.end_line + 2));

      await ws.session.close();
      expect(existsSync(sidecar)).toBe(false);
    });

    // Under 256 KB the pipeline cuts the result; from 256 KB the read itself does, on a worker:
    // either way the note says how much is left out, as the envelope's contract promises.
    it.each([
      ["a 230 KB file (cut by the pipeline)", 2300, 2300, {}],
      ["a 400 KB file (cut on a worker)", lines, lines, {}],
      ["a range of a 400 KB file", lines, 3000, { offset: 501, limit: 3000 }],
    ])("says how many lines and bytes %s leaves out", async (_what, fileLines, count, range) => {
      await ws.put("big.txt", Array.from({ length: fileLines }, (_, i) => line(i + 1)).join(""));
      const envelope = await ws.session.call("read", { path: "big.txt", ...range });
      const data = outputOf<ReadData>(envelope);
      expect(envelope.metadata.truncated).toBe(true);
      const whole = await readFile(envelope.metadata.output_path as string, "utf8");
      const rest = whole.slice(data.content.length);
      const restLines = rest.split("\n").length - 1;
      expect(restLines).toBe(data.start_line + count - 1 - data.end_line);
      const size = `${(Buffer.byteLength(rest) / 1024).toFixed(1)} KB`;
      expect(envelope.metadata.left_out).toBe(
        `The output was cut: its last ${restLines} lines (${size}) are left out, so its end is not shown. All of it is in ${envelope.metadata.output_path as string}.`,
      );
    });

    it("can read its sidecar when LATHE_HOME is reached through a symlink", async () => {
      await ws.put("big.txt", text);
      const linkedHome = `${ws.latheHome}-link`;
      await mkdir(ws.latheHome, { recursive: true });
      await symlink(ws.latheHome, linkedHome);
      const engine = await Engine.create({ root: ws.root, latheHome: linkedHome });
      try {
        const session = await engine.openSession({ mode: "yolo" });
        const envelope = await session.call("read", { path: "big.txt" });
        const sidecar = envelope.metadata.output_path as string;
        expect(outputOf<ReadData>(await session.call("read", { path: sidecar, limit: 1 })).content).toBe(
          line(1),
        );
      } finally {
        await engine.close();
      }
    });

    it("puts only the requested range in the sidecar", async () => {
      await ws.put("big.txt", text);
      const envelope = await ws.session.call("read", { path: "big.txt", offset: 1001, limit: 2500 });
      const data = outputOf<ReadData>(envelope);
      expect(envelope.metadata.truncated).toBe(true);
      expect(data.start_line).toBe(1001);
      expect(data.content.startsWith(line(1001))).toBe(true);
      expect(data.content.endsWith(line(data.end_line))).toBe(true);
      const full = await readFile(envelope.metadata.output_path as string, "utf8");
      expect(full).toBe(Array.from({ length: 2500 }, (_, i) => line(1001 + i)).join(""));
    });

    it.each([
      // Under 256 KB the pipeline cuts the result; from 256 KB the read itself does (on a worker).
      ["a 230 KB first line", "y".repeat(230 * 1024) + "\nshort\n", {}, 1, 230 * 1024],
      ["a 300 KB first line", "y".repeat(300 * 1024) + "\nshort\n", {}, 1, 300 * 1024],
      ["a 300 KB last line without a newline", "a\n" + "z".repeat(300 * 1024), { offset: 2 }, 2, 300 * 1024],
      ["a line of 150 000 three-byte characters", "€".repeat(150_000) + "\n", {}, 1, 150_000],
    ])(
      "cuts %s inside the line and says so, keeping all of it in the sidecar",
      async (_what, text, range, line, length) => {
        await ws.put("long-line.txt", text);
        const envelope = await ws.session.call("read", { path: "long-line.txt", ...range });
        const data = outputOf<ReadData>(envelope);
        expect(envelope.metadata.truncated).toBe(true);
        expect(data).toMatchObject({ start_line: line, end_line: line });
        const [shown, note] = data.content.split("\n[read: ");
        expect(Buffer.byteLength(shown as string)).toBeLessThanOrEqual(OUTPUT_LIMITS.readBytes);
        expect(Buffer.byteLength(shown as string)).toBeGreaterThan(OUTPUT_LIMITS.readBytes - 3);
        expect(note).toBe(
          `line ${line} has ${length} characters, more than read returns at once; the text above is its first ${(shown as string).length}. read cannot show the rest of this line: search it with grep (which shows the text around each match), or cut it into pieces with bash (fold -w 100000, head -c, tail -c). The next line is ${line + 1}.]`,
        );
        const whole = text.split("\n");
        expect(await readFile(envelope.metadata.output_path as string, "utf8")).toBe(
          whole.slice(line - 1).join("\n"),
        );
      },
    );

    // A line exactly as long as the cap: all of it fits, only its line break does not. It is
    // whole, and must not be said to go on past what is shown (nor a line 2 be named that is not there).
    const cap = OUTPUT_LIMITS.readBytes;
    const exactLine = "é" + "€".repeat((cap - 2) / 3);
    it.each([
      ["the only line, then LF", "a".repeat(cap) + "\n", undefined],
      ["the only line, then CRLF", "a".repeat(cap) + "\r\n", undefined],
      ["multibyte characters, then LF", exactLine + "\n", undefined],
      ["line 1 of two", "a".repeat(cap) + "\nnext\n", "next\n"],
      [
        "line 1 of a 300 KB file (cut by the read itself)",
        "a".repeat(cap) + "\n" + "b\n".repeat(50_000),
        "b\n",
      ],
    ])("shows a line of exactly the cap whole, without a note (%s)", async (_what, text, rest) => {
      expect(Buffer.byteLength(text.split(/\r?\n/)[0] as string)).toBe(cap);
      await ws.put("exact.txt", text);
      const envelope = await ws.session.call("read", { path: "exact.txt" });
      const data = outputOf<ReadData>(envelope);
      expect(data.content).not.toContain("[read:");
      expect(data.end_line).toBe(1);
      if (rest === undefined) {
        expect(data.content).toBe(text);
        expect(envelope.metadata.truncated).toBeUndefined();
      } else {
        expect(data.content).toBe(text.slice(0, text.indexOf("\n") + 1));
        expect(envelope.metadata.truncated).toBe(true);
        expect(envelope.metadata.left_out).not.toContain("part of a line");
        expect(await readFile(envelope.metadata.output_path as string, "utf8")).toBe(text);
      }
    });

    it("stops before a line longer than the cap when whole lines come first, without a note", async () => {
      await ws.put("long-line.txt", "first\n" + "y".repeat(300 * 1024) + "\n");
      const data = outputOf<ReadData>(await ws.session.call("read", { path: "long-line.txt" }));
      expect(data).toMatchObject({ content: "first\n", start_line: 1, end_line: 1, total_lines: 2 });
    });

    it("is not truncated when a range fits", async () => {
      await ws.put("big.txt", text);
      const envelope = await ws.session.call("read", { path: "big.txt", offset: 10, limit: 100 });
      expect(envelope.metadata.truncated).toBeUndefined();
      expect(outputOf<ReadData>(envelope)).toMatchObject({ start_line: 10, end_line: 109 });
    });
  });

  describe("a file whose line breaks are lone CRs (classic Mac OS, Excel for Mac CSV) has lines", () => {
    const row = (i: number): string => `row ${String(i).padStart(6, "0")},value,${"x".repeat(90)}\r`;
    const rows = (n: number): string => Array.from({ length: n }, (_, i) => row(i + 1)).join("");

    it("counts them, and reads a range of them", async () => {
      await ws.put("mac.csv", rows(10));
      expect(await read({ path: "mac.csv", offset: 2, limit: 3 })).toEqual({
        path: "mac.csv",
        content: row(2) + row(3) + row(4),
        start_line: 2,
        end_line: 4,
        total_lines: 10,
      });
      expect(errorOf(await ws.session.call("read", { path: "mac.csv", offset: 11 }))).toContain(
        "which has 10 lines",
      );
    });

    // Under 256 KB the pipeline cuts the result; from 256 KB the read itself does, on a worker.
    it.each([
      ["a 230 KB file (cut by the pipeline)", 2200],
      ["an 800 KB file (cut on a worker)", 8000],
    ])("cuts %s on a whole line, and the rest can be read from the line after", async (_what, count) => {
      const text = rows(count);
      await ws.put("mac.csv", text);
      const envelope = await ws.session.call("read", { path: "mac.csv" });
      const data = outputOf<ReadData>(envelope);
      expect(envelope.metadata.truncated).toBe(true);
      expect(data.total_lines).toBe(count);
      expect(data.content).toBe(rows(data.end_line));
      expect(data.end_line).toBeGreaterThan(1000);
      const next = await read({ path: "mac.csv", offset: data.end_line + 1, limit: 2 });
      expect(next.content).toBe(row(data.end_line + 1) + row(data.end_line + 2));
      const sidecar = envelope.metadata.output_path as string;
      expect(await readFile(sidecar, "utf8")).toBe(text);
    });
  });

  it.each([
    ["a 230 KB file (cut by the pipeline)", 2000],
    ["an 800 KB file (cut on a worker)", 7000],
  ])("shows a stray byte of a UTF-8 file in the head of %s as it shows it whole", async (_what, count) => {
    // Each line: UTF-8 text with a latin1 "©" (0xA9) in it.
    const line = Buffer.concat([
      Buffer.from(`café crème ${"x".repeat(100)} `),
      Buffer.from([0xa9]),
      Buffer.from("\n"),
    ]);
    await ws.put("notes.txt", Buffer.concat(Array.from({ length: count }, () => line)));
    const data = await read({ path: "notes.txt" });
    expect(data.end_line).toBeLessThan(count);
    expect(data.content).toBe(`café crème ${"x".repeat(100)} \uefa9\n`.repeat(data.end_line));
  });

  it.each([
    ["a 145 KB file (cut by the pipeline)", 1150],
    ["a 370 KB file (cut on a worker)", 3000],
  ])("keeps a UTF-16 file's lone surrogate in the head of %s as it shows it whole", async (_what, count) => {
    // CJK text: 2 bytes a character in the file, 3 in the UTF-8 the 200 KB limit counts.
    const line = `${"宽".repeat(60)}\udc00\n`;
    await ws.put(
      "wide.txt",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(line.repeat(count), "utf16le")]),
    );
    const data = await read({ path: "wide.txt" });
    expect(data.end_line).toBeLessThan(count);
    expect(data.content).toBe(line.repeat(data.end_line));
  });

  it("takes lone CRs inside a long line of an LF file for characters, not line breaks", async () => {
    // 230 KB: cut by the pipeline, which sees only the range (the file's last line).
    await ws.put("log.txt", `first\n${"progress 10%\r".repeat(18000)}`);
    const data = await read({ path: "log.txt", offset: 2 });
    expect([data.start_line, data.end_line, data.total_lines]).toEqual([2, 2, 2]);
    expect(data.content).toContain("[read: line 2 has 234000 characters");
  });

  it("names its real target in its plan, so permission rules judge the canonical path", async () => {
    await ws.put("secrets/key.txt", "k\n");
    await ws.put("open.txt", "o\n");
    execFileSync("ln", ["-s", "secrets/key.txt", ws.abs("innocent.txt")]);
    const engine = await Engine.create({
      root: ws.root,
      latheHome: ws.latheHome,
      manifestRules: [
        { permission: "fs.read", pattern: "secrets/**", action: "deny" },
        { permission: "fs.write", pattern: "*.txt", action: "deny" },
      ],
    });
    try {
      const session = await engine.openSession({ mode: "yolo" });
      for (const path of ["secrets/key.txt", "innocent.txt"]) {
        expect(errorOf(await session.call("read", { path }))).toMatch(/read was denied: .*secrets\/key\.txt/);
      }
      expect(outputOf<ReadData>(await session.call("read", { path: "open.txt" })).content).toBe("o\n");
      expect(errorOf(await session.call("write", { path: "open.txt", content: "x" }))).toMatch(
        /write was denied/,
      );
      expect(
        errorOf(await session.call("edit", { path: "open.txt", old_string: "o", new_string: "x" })),
      ).toMatch(/edit was denied/);
      expect(await ws.text("open.txt")).toBe("o\n");
    } finally {
      await engine.close();
    }
  });

  it("is read-only, ungated, of kind read, and may read the session folder and the global skills", () => {
    const info = ws.engine.listTools().find((t) => t.id === "read");
    expect(info).toMatchObject({ readOnly: true, gated: false, kind: "read" });
    expect(info?.requires.fs?.read).toEqual(["{workspace}/**", "{session}/**", "{user-data}/skills/**"]);
    expect(ws.engine.registry.get("read")?.tool.deriveApprovalKey({ path: "src/a.ts" })).toBe(
      "read:src/a.ts",
    );
  });
});
