import { useChat } from "../state/chat-context.tsx";
import { formatTokens, modelEntry } from "../state/model-choice.ts";
import { sessionUsage } from "../state/transcript.ts";
import { counted } from "../../shared/counted.ts";

/**
 * How full the model's context is at the latest step, against the model's context size when
 * known, and the tokens the session has used in all: beside the model picker.
 */
export function ContextMeter() {
  const turns = useChat((s) => s.turns);
  const catalog = useChat((s) => s.catalog);
  const model = useChat((s) => s.model);
  const usage = sessionUsage(turns);
  const size = modelEntry(catalog, model)?.contextTokens;
  const used = usage.contextTokens;
  const total = usage.inputTokens + usage.outputTokens;
  if (used === undefined && size === undefined) return null;
  const share = used !== undefined && size ? Math.min(1, used / size) : undefined;
  const detail = [
    used !== undefined
      ? `${counted(used, "token", { shown: used.toLocaleString() })} in the context at the latest step`
      : "No step yet",
    size ? `the model's context holds ${size.toLocaleString()}` : "the model's context size is not known",
    `${usage.inputTokens.toLocaleString()} in and ${usage.outputTokens.toLocaleString()} out this session`,
  ].join("; ");
  return (
    <div className="context-meter" role="group" aria-label="Context" title={detail}>
      <span className="context-text">
        {used !== undefined ? formatTokens(used) : "–"}
        {size ? ` / ${formatTokens(size)}` : ""}
        <span className="muted"> ctx</span>
      </span>
      {share !== undefined ? (
        <span
          className={`context-bar${share > 0.85 ? " context-bar-full" : ""}`}
          role="meter"
          aria-label="Context used"
          aria-valuemin={0}
          aria-valuemax={size}
          aria-valuenow={used}
        >
          <span style={{ width: `${Math.max(2, share * 100)}%` }} />
        </span>
      ) : null}
      {total > 0 ? <span className="muted context-total">{formatTokens(total)} used</span> : null}
    </div>
  );
}
