import { describe, expect, it } from "vitest";
import { MAX_LINE_BYTES, ScreenText, withoutControls } from "./screen-text.ts";

/** The text a screen shows for `chunks` written one after the other, as the model reads it. */
function shown(chunks: Array<string | Buffer>): string {
  const screen = new ScreenText();
  const parts: Buffer[] = [];
  for (const chunk of chunks)
    parts.push(screen.write(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
  parts.push(screen.end());
  return withoutControls(Buffer.concat(parts).toString("utf8"));
}

/** Every way of cutting `input` in two, so a sequence split between chunks is exercised at each byte. */
function everySplit(input: string): Buffer[][] {
  const bytes = Buffer.from(input);
  const splits: Buffer[][] = [];
  for (let at = 0; at <= bytes.length; at++) splits.push([bytes.subarray(0, at), bytes.subarray(at)]);
  return splits;
}

describe("ScreenText", () => {
  it.each([
    { name: "plain text", input: "hello\nworld\n", want: "hello\nworld\n" },
    { name: "tabs stay", input: "a\tb\n", want: "a\tb\n" },
    {
      name: "SGR colours",
      input: "\x1b[31mred\x1b[0m and \x1b[1;32mbold green\x1b[m\n",
      want: "red and bold green\n",
    },
    { name: "256 and true colour", input: "\x1b[38;5;196mx\x1b[38;2;1;2;3my\x1b[0m\n", want: "xy\n" },
    { name: "private modes", input: "\x1b[?25l\x1b[?1049hscreen\x1b[?25h\n", want: "screen\n" },
    { name: "CSI with an intermediate", input: "\x1b[2 qcursor\n", want: "cursor\n" },
    { name: "C1 CSI", input: "\u009b31mred\u009b0m\n", want: "red\n" },
    { name: "OSC title ended by BEL", input: "\x1b]0;my window title\x07text\n", want: "text\n" },
    { name: "OSC ended by ST", input: "\x1b]2;title\x1b\\text\n", want: "text\n" },
    {
      name: "OSC 8 hyperlink",
      input: "\x1b]8;;https://e.com/a?b=1,2+3\x1b\\link\x1b]8;;\x1b\\\n",
      want: "link\n",
    },
    { name: "OSC 52 clipboard write", input: "\x1b]52;c;cm0gLXJmIH4=\x07after\n", want: "after\n" },
    { name: "C1 OSC ended by C1 ST", input: "\u009d0;t\u009ctext\n", want: "text\n" },
    { name: "DCS string", input: "\x1bPq#0;2;0;0;0#1!14~\x1b\\after\n", want: "after\n" },
    { name: "APC, PM and SOS strings", input: "\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\ok\n", want: "ok\n" },
    { name: "BEL does not end a DCS", input: "\x1bPa\x07b\x1b\\ok\n", want: "ok\n" },
    { name: "CAN aborts a string", input: "\x1b]0;t\x18ok\n", want: "ok\n" },
    { name: "ESC inside a string starts a new sequence", input: "\x1b]0;t\x1b[31mred\n", want: "red\n" },
    {
      name: "unterminated OSC ends at its line",
      input: "\x1b]0;never ended\nnext line\n",
      want: "\nnext line\n",
    },
    { name: "unterminated OSC at the end", input: "before\n\x1b]0;never ended", want: "before\n" },
    { name: "unterminated CSI at the end", input: "text\x1b[31", want: "text" },
    { name: "lone ESC at the end", input: "text\x1b", want: "text" },
    { name: "other escapes", input: "\x1b7\x1b(B\x1b#8\x1bcsaved\x1b8\n", want: "saved\n" },
    { name: "ESC then a control: the control is read", input: "a\x1b\nb\n", want: "a\nb\n" },
    { name: "malformed CSI: the rest is text", input: "\x1b[31\x01mx\n", want: "mx\n" },
    { name: "\\r progress collapses", input: "10%\r50%\r100%\n", want: "100%\n" },
    { name: "\\r\\n is a newline", input: "a\r\nb\r\n", want: "a\nb\n" },
    { name: "\\r overwrites without erasing", input: "hello\rab\n", want: "abllo\n" },
    { name: "\\r then erase line", input: "downloading 3 files\r\x1b[Kdone\n", want: "done\n" },
    { name: "\\r then erase whole line", input: "abcdef\r\x1b[2Kxy\n", want: "xy\n" },
    { name: "erase to start", input: "abcdef\x1b[3D\x1b[1Kx\n", want: "   xef\n" },
    { name: "\\r at the very end", input: "tail\r", want: "tail" },
    { name: "last line without newline", input: "a\nb", want: "a\nb" },
    { name: "backspaces", input: "ab\bc\n", want: "ac\n" },
    { name: "backspace past the start", input: "\b\b\bx\n", want: "x\n" },
    { name: "column moves", input: "name\x1b[10Gvalue\n", want: "name     value\n" },
    { name: "cursor forward", input: "a\x1b[3Cb\n", want: "a   b\n" },
    { name: "huge cursor forward is bounded", input: "\x1b[99999999Cx\n", want: `${" ".repeat(1024)}x\n` },
    { name: "other C0 controls and DEL go", input: "a\x00b\x07c\x0bd\x0ce\x7ff\n", want: "abcdef\n" },
    { name: "other C1 controls go", input: "a\u0085b\u008dc\n", want: "abc\n" },
    { name: "unicode stays", input: "héllo 日本 😀 ©°\n", want: "héllo 日本 😀 ©°\n" },
    { name: "backspace over a multibyte character", input: "é\bx\n", want: "x\n" },
    {
      name: "a bar of multibyte characters redrawn",
      input: "━━ 10%\r━━━━ 20%\r━━━━━━ 30%\n",
      want: "━━━━━━ 30%\n",
    },
    { name: "a shorter rewrite over multibyte text", input: "日本語\rab\n", want: "ab本語\n" },
    { name: "invalid UTF-8", input: Buffer.from([0x61, 0xff, 0xfe, 0x0a]), want: "a\uFFFD\uFFFD\n" },
  ])("shows $name as the screen would", ({ input, want }) => {
    expect(shown([input])).toBe(want);
    if (typeof input === "string")
      for (const chunks of everySplit(input))
        expect(shown(chunks), JSON.stringify(chunks.map(String))).toBe(want);
  });

  it("holds the line a \\r may rewrite, and passes finished lines on at once", () => {
    const screen = new ScreenText();
    expect(String(screen.write(Buffer.from("first\nprogress 10%")))).toBe("first\n");
    expect(String(screen.write(Buffer.from("\rprogress 90%")))).toBe("");
    expect(String(screen.write(Buffer.from("\rdone        \n")))).toBe("done        \n");
    expect(String(screen.end())).toBe("");
  });

  it("collapses runs of \\r rewrites in time linear in their length", () => {
    // `\rNN%` in 64 KiB chunks as a pty gives them, `megabytes` of it.
    const chunk = Buffer.from("\r12%\r34%".repeat(8192));
    const run = (megabytes: number): number => {
      const screen = new ScreenText();
      const started = performance.now();
      const parts: Buffer[] = [];
      for (let i = 0; i < megabytes * 16; i++) parts.push(screen.write(chunk));
      parts.push(screen.end());
      expect(Buffer.concat(parts).toString()).toBe("34%");
      return performance.now() - started;
    };
    run(2); // warm up
    const small = run(4);
    const large = run(16);
    // Linear: 4× the input takes about 4× the time (a search per run of text would take 16×).
    expect(large / small).toBeLessThan(9);
  });

  it("passes a line longer than it keeps on in pieces, losing nothing", () => {
    const screen = new ScreenText();
    const long = "a".repeat(MAX_LINE_BYTES * 3 + 5);
    const text = Buffer.concat([screen.write(Buffer.from(long)), screen.end()]).toString();
    expect(text).toBe(long);
  });

  it("passes binary junk as text without controls or escape sequences", () => {
    const junk = Buffer.alloc(256 * 1024);
    let seed = 7;
    for (let i = 0; i < junk.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      junk[i] = seed >> 16;
    }
    const text = shown([junk]);
    // eslint-disable-next-line no-control-regex -- no control character may be left
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });
});
