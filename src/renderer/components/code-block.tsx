import { useMemo, useState } from "react";
import { highlightedHtml } from "../state/code-highlight.ts";

/** A fenced code block: coloured by its language (highlight.js), with its language named and a Copy button. */
export function CodeBlock({ code, language }: { code: string; language: string }) {
  const html = useMemo(() => highlightedHtml(code, language), [code, language]);
  const [copied, setCopied] = useState<"idle" | "done" | "failed">("idle");
  const copy = () => {
    navigator.clipboard.writeText(code).then(
      () => setCopied("done"),
      () => setCopied("failed"),
    );
    setTimeout(() => setCopied("idle"), 1500);
  };
  return (
    <figure className="code-figure" data-language={language || undefined}>
      <figcaption className="code-caption">
        <span>{language || "text"}</span>
        <button
          type="button"
          className="code-copy"
          onClick={copy}
          aria-label={`Copy the ${language || "text"} code`}
        >
          {copied === "done" ? "Copied" : copied === "failed" ? "Copy failed" : "Copy"}
        </button>
      </figcaption>
      <pre className="code-block">
        {html === undefined ? (
          <code>{code}</code>
        ) : (
          // highlight.js's own escaped HTML for this code (see code-highlight.ts), inside <code> only.
          <code className="hljs" dangerouslySetInnerHTML={{ __html: html }} />
        )}
      </pre>
    </figure>
  );
}
