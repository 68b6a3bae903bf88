import TurndownService from "turndown";
import { decodeEntities, nestingDepth, plainText, stripNoiseBlocks } from "./html-prefilter.ts";

/** The part of a DOM element the rules below use (turndown's parser is domino). */
interface DomElement {
  nodeName: string;
  textContent: string | null;
  parentNode: DomElement | null;
  firstChild: DomElement | null;
  children: ArrayLike<DomElement>;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): DomElement | null;
}

interface PageText {
  title?: string;
  markdown: string;
}

/** Elements that are never the page's content: code, styling, navigation, widgets, embeds. */
const NOISE = new Set([
  "SCRIPT",
  "STYLE",
  "NOSCRIPT",
  "TEMPLATE",
  "HEAD",
  "META",
  "LINK",
  "TITLE",
  "BASE",
  "IFRAME",
  "FRAME",
  "FRAMESET",
  "OBJECT",
  "EMBED",
  "SVG",
  "CANVAS",
  "NAV",
  "FOOTER",
  "ASIDE",
  "DIALOG",
  "BUTTON",
  "INPUT",
  "SELECT",
  "TEXTAREA",
]);

function isNoise(node: DomElement): boolean {
  if (NOISE.has(node.nodeName.toUpperCase())) return true;
  if (node.hasAttribute("hidden") || node.getAttribute("aria-hidden") === "true") return true;
  return node.getAttribute("role") === "navigation";
}

function absolute(href: string, base: string): string | undefined {
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol === "javascript:" || url.protocol === "data:" || url.protocol === "vbscript:")
      return undefined;
    return url.href.replace(/\(/g, "%28").replace(/\)/g, "%29").replace(/ /g, "%20");
  } catch {
    return undefined;
  }
}

function closest(node: DomElement, name: string): DomElement | undefined {
  for (let n = node.parentNode; n; n = n.parentNode) if (n.nodeName === name) return n;
  return undefined;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function converter(baseUrl: string): TurndownService {
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "_",
    hr: "---",
  });
  service.addRule("table", {
    filter: ["table"],
    replacement: (content) => `\n\n${content.replace(/\n{2,}/g, "\n").trim()}\n\n`,
  });
  service.addRule("tableSection", { filter: ["thead", "tbody", "tfoot"], replacement: (content) => content });
  service.addRule("tableRow", {
    filter: ["tr"],
    replacement: (content, node) => {
      const row = node as unknown as DomElement;
      const cells = Array.from(row.children).filter((c) => c.nodeName === "TD" || c.nodeName === "TH").length;
      const first = closest(row, "TABLE")?.querySelector("tr") === row;
      return `\n|${content}${first && cells > 0 ? `\n|${" --- |".repeat(cells)}` : ""}`;
    },
  });
  service.addRule("tableCell", {
    filter: ["th", "td"],
    replacement: (content) => ` ${collapse(content).replace(/\|/g, "\\|")} |`,
  });
  service.addRule("preformatted", {
    filter: (node) =>
      node.nodeName === "PRE" && (node as unknown as DomElement).firstChild?.nodeName !== "CODE",
    replacement: (_content, node) => {
      const text = ((node as unknown as DomElement).textContent ?? "").replace(/\n$/, "");
      const fence = /^```/m.test(text) ? "~~~" : "```";
      return `\n\n${fence}\n${text}\n${fence}\n\n`;
    },
  });
  service.addRule("link", {
    filter: (node) => node.nodeName === "A" && Boolean((node as unknown as DomElement).getAttribute("href")),
    replacement: (content, node) => {
      const href = absolute((node as unknown as DomElement).getAttribute("href") ?? "", baseUrl);
      const text = content.trim();
      if (!href) return content;
      return text === "" ? "" : `[${text}](${href})`;
    },
  });
  service.addRule("image", {
    filter: ["img"],
    replacement: (_content, node) => {
      const el = node as unknown as DomElement;
      const alt = collapse(el.getAttribute("alt") ?? "").replace(/[[\]]/g, "");
      const src = absolute(el.getAttribute("src") ?? "", baseUrl);
      if (!alt) return "";
      return src ? `![${alt}](${src})` : alt;
    },
  });
  service.addRule("noise", {
    filter: (node) => isNoise(node as unknown as DomElement),
    replacement: () => "",
  });
  return service;
}

/** HTML past this many characters (after dropping scripts and styles) is given as plain text. */
export const HTML_CONVERT_CHARS = 1_000_000;
/** Deeper (estimated) element nesting than this is given as plain text: the DOM build is quadratic in it. */
export const MAX_HTML_NESTING = 1_000;

/** The longest title kept: a real one is far shorter, and the model reads it whole (it is not truncated with the content). */
export const MAX_TITLE_CHARS = 500;

function titleOf(html: string): string | undefined {
  const open = /<title\b[^<>]*>/i.exec(html);
  if (!open) return undefined;
  const close = /<\/title\s*>/gi;
  close.lastIndex = open.index + open[0].length;
  const end = close.exec(html);
  if (!end) return undefined;
  const start = open.index + open[0].length;
  // Entities and runs of blanks take a few times the text they stand for: a slice is enough.
  const raw = html.slice(start, Math.min(end.index, start + MAX_TITLE_CHARS * 8));
  const title = collapse(decodeEntities(raw));
  if (title === "") return undefined;
  if (title.length <= MAX_TITLE_CHARS && start + raw.length === end.index) return title;
  const kept = Array.from(title.slice(0, MAX_TITLE_CHARS)).slice(0, -1).join("").trimEnd();
  return `${kept}…`;
}

/**
 * A page's readable markdown (headings, paragraphs, lists, links made absolute against
 * `baseUrl`, code blocks, tables) without scripts, styles, navigation and widgets, and its
 * `<title>`. The conversion costs time in proportion to the page: past HTML_CONVERT_CHARS the
 * rest is plain text, and a page nested deeper than MAX_HTML_NESTING is plain text throughout.
 */
export function htmlToMarkdown(html: string, baseUrl: string): PageText {
  const stripped = stripNoiseBlocks(html);
  const title = titleOf(stripped);
  let markdown: string;
  if (nestingDepth(stripped) > MAX_HTML_NESTING) {
    markdown = `(This page nests its elements more than ${MAX_HTML_NESTING} deep, so web_fetch gives its plain text.)\n\n${plainText(stripped)}`;
  } else {
    let head = stripped;
    let rest = "";
    if (stripped.length > HTML_CONVERT_CHARS) {
      const cut = stripped.lastIndexOf("<", HTML_CONVERT_CHARS);
      const at = cut > HTML_CONVERT_CHARS / 2 ? cut : HTML_CONVERT_CHARS;
      head = stripped.slice(0, at);
      rest = stripped.slice(at);
    }
    try {
      markdown = converter(baseUrl).turndown(head);
    } catch (err) {
      markdown = `(web_fetch could not convert this page to markdown: ${(err as Error).message}. This is its plain text.)\n\n${plainText(head)}`;
    }
    if (rest !== "") {
      markdown += `\n\n(The rest of this long page, past its first ${HTML_CONVERT_CHARS} characters of HTML, follows as plain text.)\n\n${plainText(rest)}`;
    }
  }
  markdown = markdown.replace(/\n{3,}/g, "\n\n").trim();
  return title === undefined ? { markdown } : { title, markdown };
}
