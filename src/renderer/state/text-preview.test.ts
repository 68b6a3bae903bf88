import { describe, expect, it } from "vitest";
import { lineCount, previewText } from "./text-preview.ts";

const numbered = (n: number, end = "\n") =>
  Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + (n > 0 ? end : "");

describe("lineCount", () => {
  it.each([
    ["", 0],
    ["one", 1],
    ["one\n", 1],
    ["one\ntwo", 2],
    ["one\ntwo\n", 2],
    ["\n\n", 2],
  ])("%j has %i lines", (text, lines) => {
    expect(lineCount(text)).toBe(lines);
  });
});

describe("previewText", () => {
  it("shows a short text whole", () => {
    const text = numbered(5);
    expect(previewText(text, { lines: 10, chars: 1000 })).toEqual({
      shown: text,
      hiddenLines: 0,
      hiddenChars: 0,
      totalLines: 5,
    });
  });

  it("shows the first lines of a long text and counts the rest", () => {
    const text = numbered(2_500);
    const preview = previewText(text, { lines: 1_000, chars: 1_000_000 });
    expect(preview.shown).toBe(numbered(1_000));
    expect(preview.hiddenLines).toBe(1_500);
    expect(preview.hiddenChars).toBe(text.length - numbered(1_000).length);
    expect(preview.totalLines).toBe(2_500);
  });

  it("counts a last line without a newline", () => {
    const preview = previewText(numbered(3, ""), { lines: 2, chars: 1000 });
    expect(preview.shown).toBe("line 1\nline 2\n");
    expect(preview.hiddenLines).toBe(1);
  });

  it("stops at whole lines within the character limit", () => {
    const text = `${"a".repeat(30)}\n${"b".repeat(30)}\n${"c".repeat(30)}\n`;
    const preview = previewText(text, { lines: 100, chars: 70 });
    expect(preview.shown).toBe(`${"a".repeat(30)}\n${"b".repeat(30)}\n`);
    expect(preview.hiddenLines).toBe(1);
    expect(preview.hiddenChars).toBe(31);
  });

  it("cuts one line longer than the character limit, and counts it as not shown", () => {
    const text = `${"x".repeat(500)}\nnext\n`;
    const preview = previewText(text, { lines: 100, chars: 100 });
    expect(preview.shown).toBe("x".repeat(100));
    expect(preview.hiddenLines).toBe(2);
    expect(preview.hiddenChars).toBe(text.length - 100);
  });

  it("draws a few hundred kilobytes' head only, as the default limits say", () => {
    const text = numbered(300_000);
    const preview = previewText(text);
    expect(lineCount(preview.shown)).toBe(1_000);
    expect(preview.shown.length).toBeLessThanOrEqual(100_000);
    expect(preview.hiddenLines).toBe(299_000);
  });
});
