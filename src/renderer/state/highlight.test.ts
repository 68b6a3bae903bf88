import { describe, expect, it } from "vitest";
import { highlight, type TokenType } from "./highlight.ts";

/** The tokens of one type, as text. */
const of = (code: string, language: string, type: TokenType) =>
  highlight(code, language)
    .filter((t) => t.type === type)
    .map((t) => t.text);

describe("code colouring", () => {
  it("keeps every character, in order", () => {
    const code = 'const x = "a\\"b"; // done\nlet n = 0x1f + 2.5e3;';
    expect(
      highlight(code, "ts")
        .map((t) => t.text)
        .join(""),
    ).toBe(code);
  });

  it("colours TypeScript keywords, strings, numbers, comments, calls and types", () => {
    const code = "export async function run(n: Number) { return fetch(`/x/${n}`) /* later */ + 42; }";
    expect(of(code, "typescript", "keyword")).toEqual(["export", "async", "function", "return"]);
    expect(of(code, "typescript", "string")).toEqual(["`/x/${n}`"]);
    expect(of(code, "typescript", "comment")).toEqual(["/* later */"]);
    expect(of(code, "typescript", "number")).toEqual(["42"]);
    expect(of(code, "typescript", "function")).toEqual(["run", "fetch"]);
    expect(of(code, "typescript", "type")).toEqual(["Number"]);
  });

  it("colours Python's triple-quoted strings and # comments", () => {
    const code = 'def f():\n    """doc\n    string"""\n    return None  # nothing';
    expect(of(code, "py", "string")).toEqual(['"""doc\n    string"""']);
    expect(of(code, "py", "comment")).toEqual(["# nothing"]);
    expect(of(code, "py", "literal")).toEqual(["None"]);
  });

  it("colours shell variables and comments, not a # inside a word", () => {
    const code = 'for f in *.ts; do echo "$f" ${HOME} a#b; done # end';
    expect(of(code, "bash", "variable")).toEqual(["${HOME}"]);
    expect(of(code, "bash", "string")).toEqual(['"$f"']);
    expect(of(code, "bash", "comment")).toEqual(["# end"]);
    expect(of(code, "bash", "keyword")).toEqual(["for", "in", "do", "done"]);
  });

  it("colours SQL keywords in any case", () => {
    expect(of("SELECT id from users WHERE id = 1", "sql", "keyword")).toEqual(["SELECT", "from", "WHERE"]);
  });

  it("colours diff lines as added, removed and headers", () => {
    const tokens = highlight("--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same", "diff");
    expect(tokens.filter((t) => t.type === "add").map((t) => t.text)).toEqual(["+new"]);
    expect(tokens.filter((t) => t.type === "remove").map((t) => t.text)).toEqual(["-old"]);
    expect(tokens.filter((t) => t.type === "meta").map((t) => t.text)).toEqual([
      "--- a",
      "+++ b",
      "@@ -1 +1 @@",
    ]);
  });

  it("colours HTML tags and attributes as text tokens", () => {
    const tokens = highlight('<a href="x" onclick="y">hi</a>', "html");
    expect(tokens.filter((t) => t.type === "tag").map((t) => t.text)).toEqual(["<a", ">", "</a>"]);
    expect(tokens.filter((t) => t.type === "attr").map((t) => t.text)).toEqual(["href", "onclick"]);
  });

  it("leaves an unknown language plain, and an unclosed string ends at its line", () => {
    expect(highlight("anything <b>", "brainfart")).toEqual([{ type: "plain", text: "anything <b>" }]);
    expect(of('x = "open\ny = 1', "js", "string")).toEqual(['"open']);
  });
});
