/** One choice a question offers; answers name it by its label. */
interface QuestionOption {
  label: string;
  description?: string;
}

/** One question as the model asked it. */
export interface Question {
  question: string;
  /** A short title for the dialog (a few words). */
  header?: string;
  /** Without options the answer is free text; with them each answer is one of their labels. */
  options?: QuestionOption[];
  /** With options: whether the person may pick several (or none). */
  multi_select?: boolean;
}

/** What a host shows a person when the model asks: every question of one call, in order. */
export interface QuestionRequest {
  id: string;
  sessionId: string;
  /** The caller's id for the question call (an agent's: the model's tool call id), when it gave one. */
  toolCallId?: string;
  questions: Question[];
}

/**
 * The person's reply: one array per question, in the order asked (a free-text answer is a
 * one-element array), or "dismissed" when they closed the dialog without answering.
 */
export type QuestionReply = { answers: string[][] } | "dismissed";

/**
 * A host that can ask a person. Headless hosts have none, and the question tool then fails with
 * a fixed message. `signal` aborts when the call is stopped: take the dialog down.
 */
export type Asker = (request: QuestionRequest, signal: AbortSignal) => Promise<QuestionReply>;

function quoted(values: readonly string[]): string {
  return values.map((v) => JSON.stringify(v)).join(", ");
}

/**
 * What is wrong with a host's answers to these questions (empty when they fit): one answer array
 * per question; free text as exactly one string; with options only offered labels, no repeats,
 * exactly one unless multi_select (which allows any number, none included). Hosts call it before
 * they resolve an asker, so a person's bad submission is refused at the dialog.
 */
export function answerProblems(questions: readonly Question[], answers: unknown): string[] {
  if (!Array.isArray(answers)) return ["answers must be an array with one array of strings per question."];
  if (answers.length !== questions.length) {
    return [
      `There are ${questions.length} question${questions.length === 1 ? "" : "s"} but ${answers.length} answer array${answers.length === 1 ? "" : "s"}; give one array per question, in order.`,
    ];
  }
  const problems: string[] = [];
  questions.forEach((q, i) => {
    const answer: unknown = answers[i];
    const which = `Question ${i + 1} ("${q.question}")`;
    if (!Array.isArray(answer) || answer.some((a) => typeof a !== "string")) {
      problems.push(`${which}: the answer must be an array of strings.`);
      return;
    }
    const given = answer as string[];
    if (!q.options) {
      if (given.length !== 1) problems.push(`${which} takes free text: answer with exactly one string.`);
      return;
    }
    const labels = q.options.map((o) => o.label);
    const unknown = given.filter((a) => !labels.includes(a));
    if (unknown.length > 0) {
      problems.push(
        `${which}: ${quoted(unknown)} ${unknown.length === 1 ? "is" : "are"} not among its options (${quoted(labels)}).`,
      );
    }
    if (new Set(given).size !== given.length) problems.push(`${which}: an option is chosen more than once.`);
    if (!q.multi_select && given.length !== 1) {
      problems.push(`${which} allows one choice, but ${given.length} were given.`);
    }
  });
  return problems;
}
