import { useMemo } from "react";
import { markdownBlocks } from "../state/markdown-blocks.ts";

/** The model's text as it streams: prose with its line breaks and `code`, and fenced code blocks. */
export function MarkdownText({ text }: { text: string }) {
  const blocks = useMemo(() => markdownBlocks(text), [text]);
  return (
    <div className="markdown">
      {blocks.map((block, index) =>
        block.kind === "code" ? (
          <pre key={index} className="code-block" data-language={block.language || undefined}>
            <code>{block.text}</code>
          </pre>
        ) : (
          <p key={index} className="prose">
            {block.spans.map((span, i) => (span.code ? <code key={i}>{span.text}</code> : span.text))}
          </p>
        ),
      )}
    </div>
  );
}
