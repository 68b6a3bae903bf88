import { randomUUID } from "node:crypto";
import { z } from "zod";
import { LatheError } from "../errors/lathe-error.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { answerProblems, type Question, type QuestionRequest } from "../tools/question-request.ts";
import type { ToolDefinition } from "../tools/contract.ts";
import { defineBuiltin } from "./define-builtin.ts";

/** What the model is told when no one can answer (CI, `lathe run`, a scheduled agent). Fixed, so hosts and tests can recognise it. */
export const HEADLESS_QUESTION_ERROR =
  "No one can answer questions in this session (headless). Continue with your best judgement and state the assumptions you made.";

/** What the model is told when the person closed the dialog without answering. */
export const DISMISSED_QUESTION_ERROR =
  "The person dismissed the questions without answering. Continue with your best judgement and state the assumptions you made; do not ask the same questions again.";

/** How long a call may wait for a person; abort (the stop button) ends the wait at any time. */
const QUESTION_TIMEOUT_MS = 24 * 60 * 60 * 1000;

const DESCRIPTION = `Ask the person questions and wait for the answers. Ask when a choice is theirs and guessing wrong would waste work; never for what you can find out yourself, nor for permission to run tools.

With options the person picks labels (several with multi_select) and the answers repeat them exactly; without, they answer in free text. Give distinct labels, a recommended option first. When no one can answer, the call fails: continue with your best judgement and state your assumptions.`;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    questions: z
      .array(
        z.strictObject({
          question: z.string().min(1).max(2000),
          header: z.string().min(1).max(60).optional().describe("A short title, a few words."),
          options: z
            .array(
              z.strictObject({
                label: z.string().min(1).max(200),
                description: z.string().max(1000).optional(),
              }),
            )
            .min(2)
            .max(20)
            .optional(),
          multi_select: z.boolean().optional(),
        }),
      )
      .min(1)
      .max(10),
  });

export interface QuestionData {
  answers: string[][];
}

/** Reject questions the person could not answer as asked: blank text, repeated labels, multi_select without options. */
function checkQuestions(questions: readonly Question[]): void {
  questions.forEach((q, i) => {
    if (q.question.trim() === "") {
      throw new ToolCallError(`questions[${i}].question is blank. Write the question you want answered.`);
    }
    if (q.multi_select && !q.options) {
      throw new ToolCallError(
        `questions[${i}] has multi_select: true but no options. Add the options to choose from, or drop multi_select for a free-text answer.`,
      );
    }
    const labels = (q.options ?? []).map((o) => o.label);
    const repeated = labels.filter((label, j) => labels.indexOf(label) !== j);
    if (repeated.length > 0) {
      throw new ToolCallError(
        `questions[${i}] offers the label ${JSON.stringify(repeated[0])} more than once. Give every option a distinct label.`,
      );
    }
  });
}

/**
 * The question tool: it hands the questions to the session's asker (the host's dialog) and waits,
 * refusing with a fixed message when the session has none. Answers that do not fit the questions
 * are the host's fault: they fail the call as an internal error (hosts get the `internal-error`
 * event), never as a mistake of the model's.
 */
export function questionTool(): ToolDefinition<z.output<ReturnType<typeof schema>>, QuestionData> {
  return defineBuiltin({
    id: "question",
    description: DESCRIPTION,
    schema,
    requires: {},
    readOnly: true,
    gated: false,
    kind: "other",
    timeoutMs: QUESTION_TIMEOUT_MS,
    async execute(args, runtime): Promise<QuestionData> {
      const questions: Question[] = args.questions;
      checkQuestions(questions);
      const asker = runtime.session.asker;
      if (!asker) throw new ToolCallError(HEADLESS_QUESTION_ERROR, "question_headless");
      const request: QuestionRequest = {
        id: randomUUID(),
        sessionId: runtime.session.id,
        ...(runtime.correlationId !== undefined ? { toolCallId: runtime.correlationId } : {}),
        questions,
      };
      const reply = await asker(request, runtime.signal);
      if (reply === "dismissed") throw new ToolCallError(DISMISSED_QUESTION_ERROR, "question_dismissed");
      const answers: unknown = typeof reply === "object" && reply !== null ? reply.answers : reply;
      const problems = answerProblems(questions, answers);
      if (problems.length > 0) {
        throw new LatheError(
          "invalid_answers",
          `the app returned answers that do not fit the questions (${problems.join(" ")}) This is a fault in the app, not in the call: continue with your best judgement and state the assumptions you made.`,
        );
      }
      return { answers: (answers as string[][]).map((a) => [...a]) };
    },
  });
}
