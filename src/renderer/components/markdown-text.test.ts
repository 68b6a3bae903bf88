import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { safeHref } from "../state/safe-href.ts";
import { MarkdownText } from "./markdown-text.tsx";

const html = (text: string): string => renderToStaticMarkup(createElement(MarkdownText, { text }));

describe("the model's markdown in the chat", () => {
  it("renders headings below the page's own, lists, tables and inline code", () => {
    const out = html("# Title\n\n- one\n- `two`\n\n| a | b |\n|--|--:|\n| 1 | 2 |");
    expect(out).toContain('<h3 class="md-heading">Title</h3>');
    expect(out).toContain("<li>one</li><li><code>two</code></li>");
    expect(out).toMatch(/<div class="md-table-scroll"><table class="md-table">/);
  });

  it("colours a fenced block by its language and keeps its text", () => {
    const out = html("```ts\nconst a = 1; // the answer\n```");
    expect(out).toContain('data-language="ts"');
    expect(out).toMatch(/<span class="hljs-keyword">const<\/span>/);
    expect(out).toContain('<span class="hljs-comment">// the answer</span>');
    expect(out).toContain("Copy");
  });

  it("shows a block in an unknown language as plain escaped text", () => {
    const out = html("```brainfuck\n<b>&</b>\n```");
    expect(out).toContain("<code>&lt;b&gt;&amp;&lt;/b&gt;</code>");
  });

  it.each([
    ["[docs](https://example.com/a)", "https://example.com/a"],
    ["[mail](mailto:me@example.com)", "mailto:me@example.com"],
    ["<https://example.com/x>", "https://example.com/x"],
  ])("links %s, opening outside the app", (md, href) => {
    const out = html(md);
    expect(out).toContain(`href="${href}"`);
    expect(out).toContain('target="_blank"');
    expect(out).toContain('rel="noopener noreferrer nofollow"');
  });

  it.each([
    "[click](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x](java\tscript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x](vbscript:msgbox)",
    "[x](/relative/path)",
    "[x](file:///etc/passwd)",
    "[x](//evil.example/p)",
  ])("never links %s: it stays text", (md) => {
    const out = html(md);
    expect(out).not.toContain("href=");
    expect(out).not.toContain("<a");
    expect(out).toContain(md.slice(1, md.indexOf("]")));
  });

  it.each([
    ['<img src=x onerror="alert(1)">', "<img"],
    ["<script>alert(1)</script>", "<script"],
    ['<a href="javascript:alert(1)">x</a>', "<a "],
    ["<section>\n\n**bold**\n\n</section>", "<section"],
    ['<iframe src="https://evil.example"></iframe>', "<iframe"],
  ])("never renders HTML from model text: %s", (md, tag) => {
    const out = html(md);
    expect(out).not.toContain(tag);
    expect(out).toContain(tag.replace("<", "&lt;"));
  });

  it("shows an image's description instead of loading it", () => {
    const out = html("![a chart](https://evil.example/track.png)");
    expect(out).not.toContain("<img");
    expect(out).not.toContain("evil.example");
    expect(out).toContain("[image: a chart]");
  });

  it("accepts only absolute http, https and mailto targets", () => {
    expect(safeHref(" https://a.b/c ")).toBe("https://a.b/c");
    expect(safeHref("javascript:void 0")).toBeUndefined();
    expect(safeHref("//evil.example")).toBeUndefined();
    expect(safeHref("relative/page")).toBeUndefined();
  });
});
