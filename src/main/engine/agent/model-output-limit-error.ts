import { ModelError } from "./model-error.ts";

export interface OutputLimitDetails {
  /** The tokens the model may write in one step (the agent's budgets.maxOutputTokens). */
  maxOutputTokens: number | undefined;
  /** The tokens the model wrote in the step it was cut off in, when the provider said. */
  outputTokens: number | undefined;
}

function describe(d: OutputLimitDetails): string {
  const reachedBudget =
    d.maxOutputTokens !== undefined && d.outputTokens !== undefined && d.outputTokens >= d.maxOutputTokens;
  if (reachedBudget) {
    return `The model's answer was cut off: it reached the ${d.maxOutputTokens} tokens an agent may write in one step (budgets.maxOutputTokens in the agent's manifest). Raise that budget, or ask for a shorter answer or for the work in smaller steps.`;
  }
  const wrote = d.outputTokens !== undefined ? ` after ${d.outputTokens} tokens` : "";
  return `The model's answer was cut off${wrote}: the model or its server stopped it at a length limit (a limit of the server's own, or a context that is full) before it was complete. Check the server's settings for the answer's length and the context size, or ask for a shorter answer.`;
}

/**
 * A step whose answer the model ended at a length limit rather than by finishing it: the run
 * fails (its last answer is incomplete) with a message that says which limit and what to do.
 */
export class ModelOutputLimitError extends ModelError {
  readonly details: OutputLimitDetails;

  constructor(details: OutputLimitDetails) {
    super("model_output_limit", describe(details));
    this.details = details;
  }
}
