import { Fragment, useMemo, type ReactNode } from "react";
import { parseMarkdown, type Block, type Inline } from "../state/markdown.ts";
import { CodeBlock } from "./code-block.tsx";

function inlines(nodes: readonly Inline[]): ReactNode {
  return nodes.map((node, index) => {
    switch (node.kind) {
      case "text":
        return <Fragment key={index}>{node.text}</Fragment>;
      case "code":
        return <code key={index}>{node.text}</code>;
      case "strong":
        return <strong key={index}>{inlines(node.children)}</strong>;
      case "em":
        return <em key={index}>{inlines(node.children)}</em>;
      case "del":
        return <del key={index}>{inlines(node.children)}</del>;
      case "link":
        // parseInline lets through http, https and mailto targets only.
        return (
          <a key={index} href={node.href} target="_blank" rel="noopener noreferrer nofollow">
            {inlines(node.children)}
          </a>
        );
      case "break":
        return <br key={index} />;
    }
  });
}

function blocks(nodes: readonly Block[]): ReactNode {
  return nodes.map((block, index) => {
    switch (block.kind) {
      case "heading": {
        // Headings inside a message sit below the page's own: h1 → h3 … h6.
        const Tag = `h${Math.min(6, block.level + 2)}` as "h3" | "h4" | "h5" | "h6";
        return (
          <Tag key={index} className="md-heading">
            {inlines(block.children)}
          </Tag>
        );
      }
      case "paragraph":
        return (
          <p key={index} className="prose">
            {inlines(block.children)}
          </p>
        );
      case "code":
        return <CodeBlock key={index} code={block.text} language={block.language} closed={block.closed} />;
      case "list": {
        const items = block.items.map((item, i) => <li key={i}>{blocks(item)}</li>);
        return block.ordered ? (
          <ol key={index} start={block.start === 1 ? undefined : block.start}>
            {items}
          </ol>
        ) : (
          <ul key={index}>{items}</ul>
        );
      }
      case "quote":
        return <blockquote key={index}>{blocks(block.children)}</blockquote>;
      case "rule":
        return <hr key={index} />;
      case "table":
        return (
          <div key={index} className="md-table-scroll">
            <table className="md-table">
              <thead>
                <tr>
                  {block.head.map((cell, i) => (
                    <th key={i} style={{ textAlign: block.align[i] ?? "left" }}>
                      {inlines(cell)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {block.rows.map((row, r) => (
                  <tr key={r}>
                    {row.map((cell, i) => (
                      <td key={i} style={{ textAlign: block.align[i] ?? "left" }}>
                        {inlines(cell)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
    }
  });
}

/**
 * The model's text as it streams, rendered from markdown with React elements only (never HTML):
 * headings, lists, quotes, tables, links (http/https/mailto), and code blocks coloured by language.
 */
export function MarkdownText({ text }: { text: string }) {
  const tree = useMemo(() => parseMarkdown(text), [text]);
  return <div className="markdown">{blocks(tree)}</div>;
}
