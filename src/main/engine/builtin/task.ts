import { z } from "zod";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { MAX_BACKGROUND_TASKS, type TaskResult } from "../tools/task-host.ts";
import type { ToolDefinition, Truncation } from "../tools/contract.ts";
import { textLeftOut, utf8Head } from "../tools/truncation.ts";
import { defineBuiltin } from "./define-builtin.ts";

/** What `task` answers outside an agent run (`lathe call task`): it needs a run to delegate from. */
export const TASK_OUTSIDE_RUN_ERROR =
  "task only runs inside an agent run (lathe run or the app's chat): it starts a subagent with the delegating run's agent, model, permissions and budgets, and there is no run here. Start one with lathe run \"<prompt>\".";

/** The longest summary the model reads inline; the whole text goes to a sidecar file. */
export const TASK_SUMMARY_BYTES = 8 * 1024;

/** A synchronous task waits as long as its child works; abort (the stop button) ends it at any time. */
const TASK_TIMEOUT_MS = 24 * 60 * 60 * 1000;

const DESCRIPTION = `Delegate a self-contained piece of work to a subagent. It sees only your prompt, not this conversation: write a complete brief (the goal, relevant files and facts, constraints, what to report back). It works in the same folder with the same or fewer permissions, and its tool calls count against your budgets. Use it for separable work that would flood your context; do small things yourself.

background: true returns {task_id} at once; later call task with {task_id} alone to wait for its result. At most ${MAX_BACKGROUND_TASKS} background tasks run at once.`;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    description: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("A label the person sees, 3-10 words. Required to start a task."),
    prompt: z.string().min(1).max(100_000).optional().describe("The brief. Required to start a task."),
    agent: z.string().min(1).max(64).optional().describe("Id of the agent to run it (default: yours)."),
    background: z.boolean().optional(),
    task_id: z.string().min(1).max(64).optional(),
  });

type TaskArgs = z.output<ReturnType<typeof schema>>;

function truncateSummary(data: TaskResult): Truncation<TaskResult> | undefined {
  if (data.summary === undefined) return undefined;
  const head = utf8Head(data.summary, TASK_SUMMARY_BYTES);
  if (head.length === data.summary.length) return undefined;
  return { data: { ...data, summary: head }, full: data.summary, leftOut: textLeftOut(data.summary, head) };
}

/**
 * The task tool: a subagent in a child session. The work is done by the agent run the call is
 * made in (`runtime.session.tasks`, see tools/task-host.ts); this tool only checks the call and
 * hands it over. It
 * touches nothing itself (the child's own calls go through the policy), so it is not gated.
 */
export function taskTool(): ToolDefinition<TaskArgs, TaskResult> {
  return defineBuiltin({
    id: "task",
    description: DESCRIPTION,
    schema,
    requires: {},
    readOnly: false,
    gated: false,
    kind: "other",
    timeoutMs: TASK_TIMEOUT_MS,
    async execute(args, runtime): Promise<TaskResult> {
      const host = runtime.session.tasks;
      if (!host) throw new ToolCallError(TASK_OUTSIDE_RUN_ERROR, "task_outside_run");
      if (args.task_id !== undefined) {
        const extra = (["description", "prompt", "agent", "background"] as const).filter(
          (k) => args[k] !== undefined,
        );
        if (extra.length > 0) {
          throw new ToolCallError(
            `task_id goes alone: it collects a background task, so leave out ${extra.join(", ")}. To start a new task, leave out task_id instead.`,
          );
        }
        return host.collect(args.task_id, runtime.signal);
      }
      const description = args.description?.trim() ?? "";
      const prompt = args.prompt?.trim() ?? "";
      const missing = [...(description === "" ? ["description"] : []), ...(prompt === "" ? ["prompt"] : [])];
      if (missing.length > 0) {
        throw new ToolCallError(
          `To start a task, give ${missing.join(" and ")}: a short label and the subagent's complete brief. (To collect a background task's result, send only its task_id.)`,
        );
      }
      return host.start(
        {
          description,
          prompt,
          agent: args.agent,
          background: args.background ?? false,
          toolCallId: runtime.correlationId,
        },
        runtime.signal,
      );
    },
    truncate: truncateSummary,
  });
}
