import { describe, expect, it } from "vitest";
import { decodeBody, sniffKind } from "./body-text.ts";
import { nestingDepth, plainText, stripNoiseBlocks } from "./html-prefilter.ts";
import { HTML_CONVERT_CHARS, htmlToMarkdown, MAX_HTML_NESTING } from "./html-to-text.ts";

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>  Release   notes &amp; more </title>
<style>body { color: red }</style><script>window.secret = "SCRIPT-TEXT";</script>
<link rel="stylesheet" href="/s.css"></head>
<body>
<nav><a href="/">Home</a> <a href="/blog">Blog</a> NAV-TEXT</nav>
<main>
<h1>Version 2.0</h1>
<p>The <strong>big</strong> release. See <a href="/docs/upgrade">the upgrade guide</a> and <a href="https://other.example/x">elsewhere</a>.</p>
<h2>Changes</h2>
<ul><li>Faster</li><li>Smaller</li></ul>
<ol><li>First</li><li>Second</li></ol>
<pre><code class="language-ts">const answer: number = 42;
console.log(answer);</code></pre>
<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a|b</td><td>1</td></tr></tbody></table>
<p hidden>HIDDEN-TEXT</p>
<button>BUTTON-TEXT</button>
<img src="/logo.png" alt="Project logo"><img src="data:image/png;base64,AAAA" alt="">
</main>
<footer>FOOTER-TEXT</footer>
<svg><title>SVG-TITLE</title><text>SVG-TEXT</text></svg>
</body></html>`;

describe("htmlToMarkdown", () => {
  const page = htmlToMarkdown(PAGE, "https://example.com/releases/2.0");

  it("takes the title from <title>, whitespace collapsed and entities decoded", () => {
    expect(page.title).toBe("Release notes & more");
  });

  it("keeps headings, emphasis, lists, code blocks and tables as markdown", () => {
    expect(page.markdown).toContain("# Version 2.0");
    expect(page.markdown).toContain("## Changes");
    expect(page.markdown).toContain("**big**");
    expect(page.markdown).toMatch(/^- +Faster$/m);
    expect(page.markdown).toMatch(/^1\. +First$/m);
    expect(page.markdown).toContain("```ts\nconst answer: number = 42;\nconsole.log(answer);\n```");
    expect(page.markdown).toContain("| Name | Value |\n| --- | --- |\n| a\\|b | 1 |");
  });

  it("makes links and images absolute against the page's URL", () => {
    expect(page.markdown).toContain("[the upgrade guide](https://example.com/docs/upgrade)");
    expect(page.markdown).toContain("[elsewhere](https://other.example/x)");
    expect(page.markdown).toContain("![Project logo](https://example.com/logo.png)");
    expect(page.markdown).not.toContain("data:image");
  });

  it("drops scripts, styles, navigation, footers, hidden elements, widgets and SVG", () => {
    for (const noise of [
      "SCRIPT-TEXT",
      "color: red",
      "NAV-TEXT",
      "FOOTER-TEXT",
      "HIDDEN-TEXT",
      "BUTTON-TEXT",
      "SVG-TITLE",
      "SVG-TEXT",
    ]) {
      expect(page.markdown).not.toContain(noise);
    }
    expect(page.markdown).not.toContain("Release notes");
  });

  it("has no title when the page has none", () => {
    expect(htmlToMarkdown("<p>just text</p>", "https://example.com/")).toEqual({ markdown: "just text" });
  });

  it("keeps a <pre> without <code> as a code block", () => {
    expect(htmlToMarkdown("<pre>line 1\n  line 2</pre>", "https://e.com/").markdown).toBe(
      "```\nline 1\n  line 2\n```",
    );
  });

  it("gives the plain text of a page nested too deep, quickly", () => {
    const html = `<title>Deep</title>${"<div>".repeat(200_000)}bottom text`;
    const started = performance.now();
    const page = htmlToMarkdown(html, "https://e.com/");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(page.title).toBe("Deep");
    expect(page.markdown).toContain(`more than ${MAX_HTML_NESTING} deep`);
    expect(page.markdown).toContain("bottom text");
  });

  it("converts the head of a very long page and gives the rest as plain text", () => {
    const para = "<p>Some <b>text</b> here.</p>\n";
    const html = `<h1>Top</h1>${para.repeat(Math.ceil((HTML_CONVERT_CHARS * 1.2) / para.length))}<h2>LAST-HEADING</h2>`;
    const page = htmlToMarkdown(html, "https://e.com/");
    expect(page.markdown.startsWith("# Top\n\nSome **text** here.")).toBe(true);
    expect(page.markdown).toContain("follows as plain text");
    expect(page.markdown.endsWith("LAST-HEADING")).toBe(true);
  });
});

describe("the linear-time HTML passes", () => {
  it("strips script, style and svg blocks and comments, an unclosed one to the end", () => {
    expect(stripNoiseBlocks("a<script>x</script>b<!-- c -->d<STYLE>e</style >f<svg><g/></svg>g")).toBe(
      "abdfg",
    );
    expect(stripNoiseBlocks("keep<script>never closed <p>text")).toBe("keep");
    expect(stripNoiseBlocks("keep<!-- never closed")).toBe("keep");
  });

  it("estimates nesting depth, ignoring void and commonly unclosed elements", () => {
    expect(nestingDepth("<div><div><span>x</span></div></div>")).toBe(3);
    expect(nestingDepth("<ul><li>a<li>b<li>c</ul><p>x<p>y<br><img src=x>")).toBe(1);
  });

  it("decodes entities in plain text", () => {
    expect(plainText("<p>a &amp; b &lt;c&gt; &#233;&#x41;</p>")).toBe("a & b <c> éA");
  });

  it.each([
    ["unclosed tags", "<a".repeat(300_000)],
    ["one endless tag name", `<${"a".repeat(1_000_000)}`],
    ["unclosed scripts", "<script>".repeat(150_000)],
    ["comments before a script", `${"<!---->".repeat(150_000)}<script>`],
    ["unclosed comments", "<!--".repeat(250_000)],
  ])("handles 1 MB of %s in linear time", (_name, html) => {
    const started = performance.now();
    htmlToMarkdown(html, "https://e.com/");
    plainText(html);
    nestingDepth(html);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("decodeBody and sniffKind", () => {
  it("uses the Content-Type charset", () => {
    expect(decodeBody(Buffer.from([0x63, 0x61, 0x66, 0xe9]), "text/plain; charset=ISO-8859-1", "text")).toBe(
      "café",
    );
  });

  it("uses a <meta charset> when the header names none", () => {
    const body = Buffer.concat([
      Buffer.from('<meta charset="windows-1252"><p>'),
      Buffer.from([0x93, 0x68, 0x69, 0x94]),
    ]);
    expect(decodeBody(body, "text/html", "html")).toContain("\u201chi\u201d");
  });

  it("lets a byte order mark win and defaults to UTF-8", () => {
    expect(
      decodeBody(Buffer.from([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]), "text/plain; charset=utf-8", "text"),
    ).toBe("hi");
    expect(decodeBody(Buffer.from("naïve"), undefined, "text")).toBe("naïve");
  });

  it.each([
    [
      "latin1 text/plain",
      [0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x61, 0xef, 0x76, 0x65],
      "text/plain",
      "text",
      "café naïve",
    ],
    ["windows-1252 quotes, no type", [0x93, 0x68, 0x69, 0x94], undefined, "text", "\u201chi\u201d"],
    [
      "latin1 HTML without <meta charset>",
      [0x3c, 0x70, 0x3e, 0xe9, 0x74, 0xe9],
      "text/html",
      "html",
      "<p>été",
    ],
    [
      "an unknown charset label on latin1",
      [0x63, 0x61, 0x66, 0xe9],
      "text/plain; charset=bogus",
      "text",
      "café",
    ],
    [
      "latin1 ending in a byte that could start a UTF-8 character",
      [0x63, 0x61, 0x66, 0xe9],
      "text/plain",
      "text",
      "café",
    ],
    ["UTF-8 without a charset", [0x63, 0x61, 0x66, 0xc3, 0xa9], "text/plain", "text", "café"],
    [
      "a declared UTF-8 charset over latin1 bytes",
      [0x63, 0x61, 0x66, 0xe9],
      "text/plain; charset=utf-8",
      "text",
      "caf\ufffd",
    ],
  ] as const)("decodes %s as a browser would", (_what, bytes, type, kind, text) => {
    expect(decodeBody(Buffer.from(bytes), type, kind)).toBe(text);
  });

  it("takes a UTF-8 body cut at the byte cap inside its last character as UTF-8", () => {
    const body = Buffer.from([0x6e, 0x61, 0xc3, 0xaf, 0x76, 0x65, 0x20, 0xc3]);
    expect(decodeBody(body, "text/plain", "text", true)).toBe("naïve \ufffd");
    expect(decodeBody(body, "text/plain", "text", false)).toBe("naÃ¯ve Ã");
  });

  it("sniffs bodies without a content type", () => {
    expect(sniffKind(Buffer.from("<!DOCTYPE html><p>x"))).toBe("html");
    expect(sniffKind(Buffer.from(' {"a": 1}'))).toBe("json");
    expect(sniffKind(Buffer.from("plain words"))).toBe("text");
    expect(sniffKind(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]))).toBe("binary");
  });
});
