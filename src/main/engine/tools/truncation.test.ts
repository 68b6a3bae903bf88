import { describe, expect, it } from "vitest";
import { leftOutNotes, leftOutSize, lineCount, textLeftOut, truncateTextField } from "./truncation.ts";

describe("the note of a truncated result", () => {
  it.each([
    ["", 0],
    ["a", 1],
    ["a\n", 1],
    ["a\nb", 2],
    ["\n\n", 2],
  ])("counts the lines of %j as %i", (text, lines) => {
    expect(lineCount(text)).toBe(lines);
  });

  it("says how many bytes and lines a cut text leaves out at its end, and how to see them", () => {
    const text = "one\ntwo\n" + "x".repeat(3000) + "\nlast\n";
    const cut = truncateTextField({ body: text }, "body", 10);
    expect(cut?.data.body).toBe("one\ntwo\n");
    expect(cut?.leftOut).toEqual({ kind: "text", bytes: 3006, lines: 2, at: "end" });
    expect(leftOutNotes(cut?.leftOut, "/s/out.txt")).toEqual({
      left_out:
        "The output was cut: its last 2 lines (2.9 KB) are left out, so its end is not shown. All of it is in /s/out.txt.",
      read_rest:
        'Search it with grep (path "/s/out.txt"), read it in parts with read (offset, limit), or see its end with bash `tail -n 100 /s/out.txt`.',
    });
  });

  it("says the rest could not be kept when there is no sidecar, without pointing anywhere", () => {
    expect(leftOutNotes(textLeftOut("a\nb\n", "a\n"), undefined)).toEqual({
      left_out:
        "The output was cut: its last 1 line (2 bytes) is left out, so its end is not shown. The whole output could not be saved.",
      read_rest: "Narrow the call to see the rest.",
    });
  });

  it.each([
    [
      "/s/o",
      'Go on with read (path "src/a.ts", offset 3001). Search all of it with grep (path "/s/o") (line 1 of /s/o is line 1001 of src/a.ts), or see its end with bash `tail -n 100 /s/o`.',
    ],
    [undefined, 'Go on with read (path "src/a.ts", offset 3001).'],
  ])("says where lines of a file go on, in the file (sidecar %s)", (outputPath, readRest) => {
    const file = { path: "src/a.ts", firstLine: 1001, next: 3001 };
    const leftOut = { kind: "text", at: "end", bytes: 90_000, lines: 800, file } as const;
    expect(leftOutNotes(leftOut, outputPath).read_rest).toBe(readRest);
  });

  it.each([
    [
      { bytes: 9_800_000, lines: 0 },
      "The output was cut: part of a line (9.3 MB) in its middle is left out;",
    ],
    [{ bytes: 2048, lines: 1 }, "The output was cut: 1 line (2.0 KB) in its middle is left out;"],
    [{ bytes: 4096, lines: 7 }, "The output was cut: 7 lines (4.0 KB) in its middle are left out;"],
  ])("says what the middle it left out of %j was, in words that fit", (size, start) => {
    const notes = leftOutNotes({ kind: "text", at: "middle", ...size }, "/s/o");
    expect(notes.left_out.startsWith(start)).toBe(true);
  });

  it("still says something when a tool did not count what it left out", () => {
    expect(leftOutNotes(undefined, "/s/o").left_out).toMatch(
      /^The result was cut to its head; .* All of it is in \/s\/o\.$/,
    );
  });
});

describe("the size of what is left out", () => {
  it.each<[number, number, string]>([
    [1, 1, "1 line (1 byte)"],
    [2, 1, "1 line (2 bytes)"],
    [700, 3, "3 lines (700 bytes)"],
    [2048, 0, "part of a line (2.0 KB)"],
  ])("leftOutSize(%d, %d) is %j", (bytes, lines, said) => {
    expect(leftOutSize(bytes, lines)).toBe(said);
  });
});
