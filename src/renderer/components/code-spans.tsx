import { Fragment } from "react";

/** A message from the host whose `backticked` parts are commands or settings: shown as code, the rest as text. */
export function CodeSpans({ text }: { text: string }) {
  const parts = text.split(/`([^`\n]+)`/);
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 1 ? <code key={index}>{part}</code> : <Fragment key={index}>{part}</Fragment>,
      )}
    </>
  );
}
