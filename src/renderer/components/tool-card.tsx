import type { ReactNode } from "react";
import type { ToolOrigin } from "../../shared/api-contract.ts";
import type { CardStatus, ToolCard as Card } from "../state/transcript.ts";
import { savedImagesOf } from "../state/tool-images.ts";
import { originLabel } from "./origin-label.ts";
import { ToolCardBody } from "./tool-card-body.tsx";

const STATUS_BADGE: Record<CardStatus, string> = {
  running: "badge badge-running",
  ok: "badge badge-output",
  error: "badge badge-error",
  denied: "badge badge-error",
  stopped: "badge badge-muted",
};

function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * One tool call: its tool, origin, status and duration, then what it did (a diff, a terminal, a
 * list), why it failed, where a truncated output and saved images are kept, and any child run it
 * started (`children`).
 */
export function ToolCard({
  card,
  origin,
  children,
}: {
  card: Card;
  origin: ToolOrigin | undefined;
  children?: ReactNode;
}) {
  const envelope = card.envelope;
  return (
    <article className={`tool-card tool-card-${card.status}`} aria-label={`${card.toolName} call`}>
      <header className="tool-card-head">
        <code className="tool-card-name">{card.toolName}</code>
        {origin ? <span className="muted">{originLabel(origin)}</span> : null}
        <span className={STATUS_BADGE[card.status]} aria-label="Status">
          {card.status}
        </span>
        {envelope ? <span className="muted">{duration(envelope.metadata.duration_ms)}</span> : null}
      </header>
      <ToolCardBody card={card} />
      {card.approval?.decision === "deny" ? (
        <p className="notice card-line">Not approved: {card.approval.reason}</p>
      ) : null}
      {card.refusal ? <p className="notice card-line">{card.refusal}</p> : null}
      {envelope?.type === "error" ? (
        <pre className="error-text card-error" aria-label="Error text">
          {envelope.error_text}
        </pre>
      ) : null}
      {envelope?.metadata.truncated ? (
        <p className="notice card-line">
          Output truncated
          {envelope.metadata.output_path ? (
            <>
              ; the whole output is in <code>{envelope.metadata.output_path}</code>
            </>
          ) : null}
        </p>
      ) : null}
      {savedImagesOf(envelope).map((image) => (
        <p key={image.path} className="notice card-line">
          Image ({image.mimeType}, {image.bytes} bytes) saved in <code>{image.path}</code>
        </p>
      ))}
      {children}
    </article>
  );
}
