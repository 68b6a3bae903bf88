import { describe, expect, it } from "vitest";
import { diffLines } from "./diff-lines.ts";
import { inlineSpans, markdownBlocks } from "./markdown-blocks.ts";

describe("the model's text as blocks", () => {
  it("keeps prose with its line breaks and splits out fenced code with its language", () => {
    expect(markdownBlocks("Here is the fix:\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\nDone.")).toEqual([
      { kind: "prose", spans: [{ code: false, text: "Here is the fix:" }] },
      { kind: "code", language: "ts", text: "const a = 1;\n\nconst b = 2;", closed: true },
      { kind: "prose", spans: [{ code: false, text: "Done." }] },
    ]);
  });

  it("shows a fence still streaming as an open code block", () => {
    expect(markdownBlocks("Run:\n```bash\nnpm te")).toEqual([
      { kind: "prose", spans: [{ code: false, text: "Run:" }] },
      { kind: "code", language: "bash", text: "npm te", closed: false },
    ]);
  });

  it.each([
    {
      name: "a longer fence closes only with as many backticks",
      text: "````\n```\ninner\n```\n````",
      code: "```\ninner\n```",
    },
    { name: "tildes close tildes, not backticks", text: "~~~\n```\n~~~", code: "```" },
    {
      name: "a fence with text after it does not close",
      text: "```\n``` not a close\n```",
      code: "``` not a close",
    },
  ])("$name", ({ text, code }) => {
    expect(markdownBlocks(text)).toEqual([{ kind: "code", language: "", text: code, closed: true }]);
  });

  it("marks `inline code`, and leaves an unclosed backtick as text", () => {
    expect(inlineSpans("Use `npm test` then `lint")).toEqual([
      { code: false, text: "Use " },
      { code: true, text: "npm test" },
      { code: false, text: " then `lint" },
    ]);
  });
});

describe("a unified diff's lines", () => {
  it("tells file headers, hunks, additions, removals and context apart", () => {
    const diff = [
      "Index: a.txt",
      "===================================================================",
      "--- a.txt",
      "+++ a.txt",
      "@@ -1,3 +1,3 @@",
      " keep",
      "--- a removed line that looks like a header",
      "+++ an added line that looks like a header",
      " end",
      "\\ No newline at end of file",
      "",
    ].join("\n");
    expect(diffLines(diff).map((l) => l.kind)).toEqual([
      "file",
      "file",
      "file",
      "file",
      "hunk",
      "context",
      "remove",
      "add",
      "context",
      "context",
    ]);
  });
});
