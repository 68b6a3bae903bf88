import { useMemo, useState } from "react";
import { highlight } from "../state/highlight.ts";

/** A fenced code block: coloured by its language, with its language named and a Copy button. */
export function CodeBlock({ code, language, closed }: { code: string; language: string; closed: boolean }) {
  const tokens = useMemo(() => highlight(code, language), [code, language]);
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
        {!closed ? <span className="muted">writing…</span> : null}
        <button type="button" className="code-copy" onClick={copy}>
          {copied === "done" ? "Copied" : copied === "failed" ? "Copy failed" : "Copy"}
        </button>
      </figcaption>
      <pre className="code-block">
        <code>
          {tokens.map((token, index) =>
            token.type === "plain" ? (
              token.text
            ) : (
              <span key={index} className={`tok-${token.type}`}>
                {token.text}
              </span>
            ),
          )}
        </code>
      </pre>
    </figure>
  );
}
