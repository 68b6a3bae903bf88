import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";

/** What a call to a model that serves one call at a time says about its turn. */
export interface ModelTurnListener {
  /** The model is busy with another run's call: this one waits for it (said at most once). */
  queued?(): void;
  /** The call has the model now (said only after `queued`). */
  started?(): void;
}

/**
 * A model this process runs itself, one call at a time (an embedded GGUF model): a call made
 * while another run's call has it waits for its turn before the model starts on it. Such a wait
 * is no silence of the model, and a host says what it is.
 */
export interface TurnTakingModel extends LanguageModelV4 {
  /** `doStream`, telling `turn` when the call waits for the model and when it has it. */
  doStreamInTurn(
    options: LanguageModelV4CallOptions,
    turn: ModelTurnListener,
  ): Promise<LanguageModelV4StreamResult>;
}

export function takesTurns(model: LanguageModelV4): model is TurnTakingModel {
  return typeof (model as Partial<TurnTakingModel>).doStreamInTurn === "function";
}
