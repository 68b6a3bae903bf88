import { describe, expect, it } from "vitest";
import { parseInline, parseMarkdown, safeHref } from "./markdown.ts";

const text = (t: string) => ({ kind: "text", text: t });

describe("the model's markdown", () => {
  it("splits prose and fenced code with its language", () => {
    expect(parseMarkdown("Here is the fix:\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\nDone.")).toEqual([
      { kind: "paragraph", children: [text("Here is the fix:")] },
      { kind: "code", language: "ts", text: "const a = 1;\n\nconst b = 2;", closed: true },
      { kind: "paragraph", children: [text("Done.")] },
    ]);
  });

  it("shows a fence still streaming as an open code block", () => {
    expect(parseMarkdown("Run:\n```bash\nnpm te")).toEqual([
      { kind: "paragraph", children: [text("Run:")] },
      { kind: "code", language: "bash", text: "npm te", closed: false },
    ]);
  });

  it.each([
    {
      name: "a longer fence closes only with as many backticks",
      md: "````\n```\ninner\n```\n````",
      code: "```\ninner\n```",
    },
    { name: "tildes close tildes, not backticks", md: "~~~\n```\n~~~", code: "```" },
    {
      name: "a fence with text after it does not close",
      md: "```\n``` not a close\n```",
      code: "``` not a close",
    },
  ])("$name", ({ md, code }) => {
    expect(parseMarkdown(md)).toEqual([{ kind: "code", language: "", text: code, closed: true }]);
  });

  it("reads headings, rules, quotes and tables", () => {
    const blocks = parseMarkdown(
      "# Title\n\n## Part *two*\n\n---\n\n> quoted **text**\n> more\n\n| a | b |\n|:--|--:|\n| `x|y` | 2 |\n",
    );
    expect(blocks.map((b) => b.kind)).toEqual(["heading", "heading", "rule", "quote", "table"]);
    expect(blocks[1]).toEqual({
      kind: "heading",
      level: 2,
      children: [text("Part "), { kind: "em", children: [text("two")] }],
    });
    expect(blocks[3]).toMatchObject({
      kind: "quote",
      children: [
        {
          kind: "paragraph",
          children: [text("quoted "), { kind: "strong" }, { kind: "break" }, text("more")],
        },
      ],
    });
    expect(blocks[4]).toEqual({
      kind: "table",
      align: ["left", "right"],
      head: [[text("a")], [text("b")]],
      rows: [[[{ kind: "code", text: "x|y" }], [text("2")]]],
    });
  });

  it("reads bullet and numbered lists, nested by indentation, with code inside an item", () => {
    const [list] = parseMarkdown(
      "1. First\n   - inner a\n   - inner b\n2. Second\n   ```sh\n   ls\n   ```\n3. Third\nlazy line",
    );
    expect(list).toMatchObject({ kind: "list", ordered: true, start: 1 });
    if (list?.kind !== "list") throw new Error("not a list");
    expect(list.items).toHaveLength(3);
    expect(list.items[0]).toEqual([
      { kind: "paragraph", children: [text("First")] },
      {
        kind: "list",
        ordered: false,
        start: 1,
        items: [
          [{ kind: "paragraph", children: [text("inner a")] }],
          [{ kind: "paragraph", children: [text("inner b")] }],
        ],
      },
    ]);
    expect(list.items[1]?.[1]).toEqual({ kind: "code", language: "sh", text: "ls", closed: true });
    expect(list.items[2]).toEqual([
      { kind: "paragraph", children: [text("Third"), { kind: "break" }, text("lazy line")] },
    ]);
  });

  it("starts a numbered list where the model started it", () => {
    expect(parseMarkdown("3. three\n4. four")[0]).toMatchObject({ kind: "list", ordered: true, start: 3 });
  });
});

describe("inline markdown", () => {
  it("marks code, bold, italics and strike-through; unclosed markers stay text", () => {
    expect(parseInline("Use `npm test`, **bold** and *it* or ~~gone~~ then `lint and **half")).toEqual([
      text("Use "),
      { kind: "code", text: "npm test" },
      text(", "),
      { kind: "strong", children: [text("bold")] },
      text(" and "),
      { kind: "em", children: [text("it")] },
      text(" or "),
      { kind: "del", children: [text("gone")] },
      text(" then `lint and **half"),
    ]);
  });

  it("leaves snake_case names and lone stars alone", () => {
    expect(parseInline("call read_file_now and 2 * 3 * 4")).toEqual([
      text("call read_file_now and 2 * 3 * 4"),
    ]);
  });

  it("keeps backslash escapes literal", () => {
    expect(parseInline("\\*not em\\*")).toEqual([text("*not em*")]);
  });

  it.each([
    ["[docs](https://example.com/a)", "https://example.com/a"],
    ["[mail](mailto:me@example.com)", "mailto:me@example.com"],
    ["<https://example.com>", "https://example.com"],
    ["see https://example.com/x.", "https://example.com/x"],
  ])("links %s", (md, href) => {
    expect(parseInline(md).find((i) => i.kind === "link")).toMatchObject({ kind: "link", href });
  });

  it.each([
    "[click](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x](vbscript:msgbox)",
    "[x](/relative/path)",
    "[x](file:///etc/passwd)",
  ])("never links %s: it stays text", (md) => {
    const inline = parseInline(md);
    expect(inline.some((i) => i.kind === "link")).toBe(false);
  });

  it("treats HTML as text", () => {
    expect(parseInline('<img src=x onerror="alert(1)"> <script>x</script>')).toEqual([
      text('<img src=x onerror="alert(1)"> <script>x</script>'),
    ]);
  });

  it("accepts only http, https and mailto targets", () => {
    expect(safeHref(" https://a.b ")).toBe("https://a.b");
    expect(safeHref("javascript:void 0")).toBeUndefined();
    expect(safeHref("//evil.example")).toBeUndefined();
  });
});
