/**
 * Linear-time passes over raw HTML that run before (or instead of) the DOM-based conversion,
 * so a hostile page costs time in proportion to its size: no regex here can backtrack over
 * the whole input.
 */

const RAW_BLOCK_OPEN = /<(script|style|svg|noscript|template|iframe|math)\b/gi;
const COMMENT_OPEN = "<!--";

/** Drop `<script>`, `<style>`, `<svg>`… blocks and comments; an unclosed one runs to the end. */
export function stripNoiseBlocks(html: string): string {
  const out: string[] = [];
  let pos = 0;
  // The next block opening and comment at or after `pos`, found once each so the scan stays linear.
  let block: RegExpExecArray | null | undefined;
  let comment: number | undefined;
  for (;;) {
    if (block !== null && (block === undefined || block.index < pos)) {
      RAW_BLOCK_OPEN.lastIndex = pos;
      block = RAW_BLOCK_OPEN.exec(html);
    }
    if (comment === undefined || (comment >= 0 && comment < pos)) comment = html.indexOf(COMMENT_OPEN, pos);
    const blockAt = block ? block.index : -1;
    if (blockAt < 0 && comment < 0) break;
    if (comment >= 0 && (blockAt < 0 || comment < blockAt)) {
      out.push(html.slice(pos, comment));
      const end = html.indexOf("-->", comment + COMMENT_OPEN.length);
      if (end < 0) return out.join("");
      pos = end + 3;
      continue;
    }
    const name = (block as RegExpExecArray)[1] as string;
    out.push(html.slice(pos, blockAt));
    const close = new RegExp(`</${name}\\s*>`, "gi");
    close.lastIndex = blockAt + name.length + 1;
    const end = close.exec(html);
    if (!end) return out.join("");
    pos = end.index + end[0].length;
  }
  out.push(html.slice(pos));
  return out.join("");
}

/** Elements that never hold children, or that pages commonly leave unclosed. */
const FLAT = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
  "p",
  "li",
  "dt",
  "dd",
  "tr",
  "td",
  "th",
  "option",
]);

/** An estimate of the deepest element nesting (open tags minus close tags), for a cost guard. */
export function nestingDepth(html: string): number {
  const tag = /<(\/?)([A-Za-z][A-Za-z0-9-]*)(?=[\s/>])[^<>]*>/g;
  let depth = 0;
  let max = 0;
  for (let m = tag.exec(html); m; m = tag.exec(html)) {
    const name = (m[2] as string).toLowerCase();
    if (FLAT.has(name) || m[0].endsWith("/>")) continue;
    depth = m[1] === "/" ? Math.max(depth - 1, 0) : depth + 1;
    if (depth > max) max = depth;
  }
  return max;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Decode the common named entities and numeric character references. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** The text of HTML without any markup: tags dropped, entities decoded, blank runs collapsed. */
export function plainText(html: string): string {
  return decodeEntities(stripNoiseBlocks(html).replace(/<[^<>]*>/g, " "))
    .replace(/[ \t\f\v\r]+/g, " ")
    .replace(/ ?\n[\s]*/g, "\n")
    .trim();
}
