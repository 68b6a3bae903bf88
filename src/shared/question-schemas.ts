// The question tool's dialog: what the host asks the person (the `question.requested` push), how
// the prompt ends (`question.settled`), and the person's answer (`question.respond`).
import { z } from "zod";
import { RunSessionIdSchema } from "./approval-schemas.ts";

const QuestionOptionSchema = z.object({
  label: z.string(),
  description: z.string().optional(),
});

/** One question as the model asked it: free text without options, else one (or, with multi_select, any) of them. */
const QuestionSchema = z.object({
  question: z.string(),
  header: z.string().optional(),
  options: z.array(QuestionOptionSchema).optional(),
  multi_select: z.boolean().optional(),
});

export const QuestionRequestSchema = z.strictObject({
  /** The id to answer with `question.respond`; unique per dialog. */
  id: z.string().min(1),
  sessionId: z.string(),
  /** The chat session whose run asks: every UI showing it shows the dialog (see approval-schemas.ts). */
  runSessionId: RunSessionIdSchema,
  /** The model's id of the question call in the chat (its tool card), for a chat run's call. */
  toolCallId: z.string().optional(),
  questions: z.array(QuestionSchema).min(1),
});

export const QuestionSettledSchema = z.strictObject({
  id: z.string().min(1),
  /** answered or dismissed: by the person; aborted: the call was stopped; closed: the UI went away. */
  cause: z.enum(["answered", "dismissed", "aborted", "closed"]),
});

const QuestionIdSchema = z.string().min(1).max(200);

/** One array per question, in order: the chosen labels, or the one free text. */
const QuestionAnswersSchema = z.array(z.array(z.string().max(100_000)).max(100)).max(50);

/** Answer the dialog on screen, or dismiss it (Esc, close): the model then continues without answers. */
export const QuestionResponseSchema = z.union([
  z.strictObject({ id: QuestionIdSchema, answers: QuestionAnswersSchema }),
  z.strictObject({ id: QuestionIdSchema, dismissed: z.literal(true) }),
]);

export type Question = z.output<typeof QuestionSchema>;
