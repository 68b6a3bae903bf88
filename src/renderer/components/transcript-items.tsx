import type { ToolInfo } from "../../shared/api-contract.ts";
import { cardKind } from "../state/tool-summary.ts";
import type { TaskRun, TranscriptItem } from "../state/transcript.ts";
import { useAppState } from "../state/store-context.tsx";
import { MarkdownText } from "./markdown-text.tsx";
import { ToolCard } from "./tool-card.tsx";

function TaskView({ task }: { task: TaskRun }) {
  const label = `${task.agent ? `Subagent ${task.agent}` : "Subagent"} · ${task.status}`;
  return (
    <details className="task-run" open aria-label={`Task ${task.taskId}`}>
      <summary>{label}</summary>
      <TranscriptItems items={task.items} />
      {task.error ? <p className="error-text card-error">{task.error}</p> : null}
    </details>
  );
}

/** Where an answer the model never finished stops. */
function CutOffMark() {
  return (
    <p className="muted cut-off-mark" role="note" aria-label="Cut off">
      — cut off here: the model did not finish this answer.
    </p>
  );
}

const WHY = {
  "context-near-full": "it neared the model's context window",
  "context-full": "the model refused it as too long",
  manual: "as asked",
} as const;

/**
 * Where the older conversation was summarised: a divider that opens to the summary the model is
 * sent from here on in place of the messages above (which stay here, as they were).
 */
function CompactionDivider({ item }: { item: Extract<TranscriptItem, { kind: "compaction" }> }) {
  const plural = item.messages === 1 ? "" : "s";
  return (
    <details className="compaction-divider" aria-label="Earlier conversation summarised">
      <summary>
        <span className="compaction-label">
          <span className="compaction-title">Earlier conversation summarised</span>
          <span className="muted">
            {" "}
            · {item.messages} message{plural} ({WHY[item.reason]}), about {item.tokensBefore} →{" "}
            {item.tokensAfter} tokens a request
          </span>
        </span>
      </summary>
      <p className="muted compaction-note">
        The model is now sent this summary in place of the earlier messages above, which stay in the session.
      </p>
      <div className="compaction-summary">
        <MarkdownText text={item.summary} />
      </div>
    </details>
  );
}

function infoOf(tools: readonly ToolInfo[], id: string): ToolInfo | undefined {
  return tools.find((tool) => tool.id === id);
}

/** A run's items in order: text, reasoning, notices, tool cards (child runs nested under their task). */
export function TranscriptItems({ items }: { items: readonly TranscriptItem[] }) {
  const tools = useAppState((s) => s.tools);
  return (
    <>
      {items.map((item, index) => {
        switch (item.kind) {
          case "text":
            return (
              <div key={index} className={item.cutOff ? "assistant-text cut-off" : "assistant-text"}>
                <MarkdownText text={item.text} />
                {item.cutOff ? <CutOffMark /> : null}
              </div>
            );
          case "reasoning":
            return (
              <details key={index} className="reasoning">
                <summary>{item.cutOff ? "Thinking (cut off)" : "Thinking"}</summary>
                <p>{item.text}</p>
                {item.cutOff ? <CutOffMark /> : null}
              </details>
            );
          case "notice":
            return (
              <p key={index} className="notice chat-notice" role="note">
                {item.message}
              </p>
            );
          case "compaction":
            return <CompactionDivider key={index} item={item} />;
          case "tool": {
            const info = infoOf(tools, item.toolName);
            return (
              <ToolCard
                key={item.toolCallId}
                card={item}
                kind={cardKind(item.toolName, info?.kind)}
                origin={info?.origin}
              >
                {item.task ? <TaskView task={item.task} /> : null}
              </ToolCard>
            );
          }
          case "task":
            return <TaskView key={`task-${item.task.taskId}`} task={item.task} />;
        }
      })}
    </>
  );
}
