import { compiler, RuleType, type MarkdownToJSX } from "markdown-to-jsx/react";
import { Fragment, useMemo, type ComponentProps, type ReactNode } from "react";
import { safeHref } from "../state/safe-href.ts";
import { CodeBlock } from "./code-block.tsx";

/** Links open outside the app, and only to the web or mail (the sanitizer dropped anything else). */
function SafeLink({ href, children }: { href?: string; children?: ReactNode }) {
  const target = href === undefined ? undefined : safeHref(href);
  if (target === undefined) return <span className="md-link-dropped">{children}</span>;
  return (
    <a href={target} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  );
}

/** Headings inside a message sit below the page's own (h1 → h3 … h6), with no ids of their own. */
function heading(level: 3 | 4 | 5 | 6) {
  const Tag = `h${level}` as const;
  return function Heading({ children }: { children?: ReactNode }) {
    return <Tag className="md-heading">{children}</Tag>;
  };
}

function Table(props: ComponentProps<"table">) {
  return (
    <div className="md-table-scroll">
      <table {...props} className="md-table" />
    </div>
  );
}

const OPTIONS: MarkdownToJSX.Options = {
  // Model text is never HTML: tags show as the text they are, and nothing is injected.
  disableParsingRawHTML: true,
  ignoreHTMLBlocks: true,
  disableFrontmatter: true,
  optimizeForStreaming: true,
  forceBlock: true,
  wrapper: Fragment,
  sanitizer: (value, _tag, attribute) => (attribute === "href" ? (safeHref(value) ?? null) : null),
  overrides: {
    a: SafeLink,
    p: { component: "p", props: { className: "prose" } },
    h1: heading(3),
    h2: heading(4),
    h3: heading(5),
    h4: heading(6),
    h5: heading(6),
    h6: heading(6),
    table: Table,
  },
  renderRule(next, node, _render, state) {
    switch (node.type) {
      case RuleType.codeBlock:
        return <CodeBlock key={state.key} code={node.text} language={node.lang ?? ""} />;
      // An image would load whatever the model names: show its description instead.
      case RuleType.image:
        return node.alt ? <span key={state.key}>[image: {node.alt}]</span> : null;
      case RuleType.htmlBlock:
      case RuleType.htmlSelfClosing:
      case RuleType.htmlComment:
        return null;
      default:
        return next();
    }
  },
};

/**
 * The model's text as it streams, rendered from markdown (markdown-to-jsx) as React elements,
 * never as HTML: headings, lists, quotes, tables, links (http/https/mailto only), and code blocks
 * coloured by language.
 */
export function MarkdownText({ text }: { text: string }) {
  const tree = useMemo(() => compiler(text, OPTIONS), [text]);
  return <div className="markdown">{tree}</div>;
}
