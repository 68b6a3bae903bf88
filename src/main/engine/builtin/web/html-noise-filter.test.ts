import { describe, expect, it } from "vitest";
import { HtmlNoiseFilter } from "./html-noise-filter.ts";

/** The filter's output for `html` fed in the given pieces, and what it counted as left out. */
function run(pieces: string[]): { text: string; skipped: number } {
  const filter = new HtmlNoiseFilter();
  const out = pieces.map((p) => filter.push(Buffer.from(p, "latin1")));
  out.push(filter.end());
  return { text: Buffer.concat(out).toString("latin1"), skipped: filter.skipped };
}

const ROWS: [name: string, html: string, kept: string][] = [
  ["plain text", "<p>hello</p>", "<p>hello</p>"],
  ["a script", "<p>a</p><script>var x = 1 < 2;</script><p>b</p>", "<p>a</p><script></script><p>b</p>"],
  ["a style with attributes", '<style media="x">p{}</style>t', '<style media="x"></style>t'],
  ["upper case tags", "<SCRIPT>x</ScRiPt >t", "<SCRIPT></ScRiPt >t"],
  ["a > inside a quoted attribute", '<script data-x="a>b">code</script>t', '<script data-x="a>b"></script>t'],
  [
    "a closing tag of another element inside",
    "<script>document.write('</p>')</script>t",
    "<script></script>t",
  ],
  ["a </scripts> that does not close it", "<script>a</scripts>b</script>t", "<script></script>t"],
  ["not a script: <scripture>", "<scripture>words</scripture>", "<scripture>words</scripture>"],
  [
    "a script inside a comment",
    "<!-- <script> -->text<script>x</script>",
    "<!-- <script> -->text<script></script>",
  ],
  ["an unclosed script runs to the end", "text<script>forever", "text<script>"],
  ["a lone < in text", "a < b <s", "a < b <s"],
  ["a self-closing script tag is still a script", "<script/>x</script>t", "<script/></script>t"],
];

describe("HtmlNoiseFilter", () => {
  it.each(ROWS)("%s, fed whole", (_name, html, kept) => {
    const result = run([html]);
    expect(result.text).toBe(kept);
    expect(result.skipped).toBe(html.length - kept.length);
  });

  it.each(ROWS)("%s, split at every byte", (_name, html, kept) => {
    for (let at = 0; at <= html.length; at++) {
      expect(run([html.slice(0, at), html.slice(at)]).text, `split at ${at}`).toBe(kept);
    }
    expect(run([...html]).text).toBe(kept);
  });

  it("holds no more than a few bytes between chunks, whatever the page", () => {
    const filter = new HtmlNoiseFilter();
    let out = 0;
    out += filter.push(Buffer.from("<p>start</p><script>")).length;
    for (let i = 0; i < 1_000; i++) out += filter.push(Buffer.alloc(10_000, "x")).length;
    out += filter.push(Buffer.from("</script><p>end</p>")).length;
    out += filter.end().length;
    expect(out).toBe("<p>start</p><script></script><p>end</p>".length);
    expect(filter.skipped).toBe(10_000_000);
  });

  it("leaves a UTF-16 page as it is (its markup is not these bytes)", () => {
    const html = Buffer.from("<script>x</script>t", "utf16le");
    const filter = new HtmlNoiseFilter();
    expect(Buffer.concat([filter.push(html), filter.end()])).toEqual(html);
  });
});
