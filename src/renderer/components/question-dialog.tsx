import { useMemo, useState } from "react";
import type { Question } from "../../shared/question-schemas.ts";
import { useChat } from "../state/chat-context.tsx";
import { shownQuestions } from "../state/chat-store.ts";
import { Modal } from "./modal.tsx";
import { ErrorLine } from "./error-line.tsx";

/** The answers the form starts with: nothing chosen, no text. */
function emptyAnswers(questions: readonly Question[]): string[][] {
  return questions.map((q) => (q.options ? [] : [""]));
}

function QuestionField({
  question,
  index,
  answer,
  onChange,
}: {
  question: Question;
  index: number;
  answer: string[];
  onChange(next: string[]): void;
}) {
  const legendId = `question-${index}-legend`;
  if (!question.options) {
    return (
      <fieldset className="question-field" aria-labelledby={legendId}>
        <legend id={legendId}>
          {question.header ? <strong>{question.header}: </strong> : null}
          {question.question}
        </legend>
        <textarea
          aria-labelledby={legendId}
          rows={3}
          value={answer[0] ?? ""}
          onChange={(event) => onChange([event.target.value])}
        />
      </fieldset>
    );
  }
  const multi = question.multi_select === true;
  return (
    <fieldset className="question-field" aria-labelledby={legendId}>
      <legend id={legendId}>
        {question.header ? <strong>{question.header}: </strong> : null}
        {question.question}
        {multi ? <span className="muted"> (choose any)</span> : null}
      </legend>
      {question.options.map((option) => {
        const checked = answer.includes(option.label);
        return (
          <label key={option.label} className="question-option">
            <input
              type={multi ? "checkbox" : "radio"}
              name={`question-${index}`}
              checked={checked}
              onChange={() =>
                onChange(
                  multi
                    ? checked
                      ? answer.filter((a) => a !== option.label)
                      : [...answer, option.label]
                    : [option.label],
                )
              }
            />
            <span>
              {option.label}
              {option.description ? <span className="muted"> — {option.description}</span> : null}
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}

/**
 * The agent's questions as a modal dialog: options as radio buttons (checkboxes when several may
 * be chosen), free text when there are none. Answer sends them; Esc or Dismiss closes the dialog
 * without answers and the agent goes on with its best judgement. Answers that do not fit are
 * refused by the host and the dialog stays, saying why.
 */
export function QuestionDialog() {
  const questions = useChat((s) => s.questions);
  const sessionId = useChat((s) => s.sessionId);
  const shown = useMemo(() => shownQuestions({ questions, sessionId }), [questions, sessionId]);
  const prompt = shown[0];
  const waiting = shown.length;
  const answering = useChat((s) => s.answering);
  const error = useChat((s) => s.questionError);
  const answerQuestion = useChat((s) => s.answerQuestion);
  const dismissQuestion = useChat((s) => s.dismissQuestion);
  const clearQuestionError = useChat((s) => s.clearQuestionError);
  const [answers, setAnswers] = useState<{ id: string; values: string[][] } | undefined>(undefined);
  const promptId = prompt?.id;
  const values =
    prompt && answers?.id === prompt.id ? answers.values : prompt ? emptyAnswers(prompt.questions) : [];

  const dismiss = () => {
    if (!answering) void dismissQuestion();
  };

  return (
    <Modal
      open={prompt !== undefined}
      focusKey={promptId}
      onClose={dismiss}
      labelledBy="question-title"
      className="question-dialog"
    >
      {prompt ? (
        <form
          className="approval-body"
          onSubmit={(event) => {
            event.preventDefault();
            if (!answering) void answerQuestion(values);
          }}
        >
          <h2 id="question-title">The agent asks</h2>
          {waiting > 1 ? <p className="muted">{waiting - 1} more after this one.</p> : null}
          <div className="approval-scroll">
            {prompt.questions.map((question, index) => (
              <QuestionField
                key={index}
                question={question}
                index={index}
                answer={values[index] ?? []}
                onChange={(next) => {
                  clearQuestionError();
                  setAnswers({ id: prompt.id, values: values.map((v, i) => (i === index ? next : v)) });
                }}
              />
            ))}
          </div>
          <ErrorLine message={error} />
          <div className="approval-actions">
            <button type="button" disabled={answering} onClick={dismiss}>
              Dismiss
            </button>
            <button type="submit" className="run" disabled={answering}>
              Answer
            </button>
          </div>
          <p className="muted approval-hint">
            Esc dismisses: the agent then goes on with its best judgement.
          </p>
        </form>
      ) : null}
    </Modal>
  );
}
