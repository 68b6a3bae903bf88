import { LatheError } from "./lathe-error.ts";

/**
 * A conversation could not be compacted: nothing older to summarise, the summary request failed
 * or came back empty, or the summary was no shorter than what it would replace. Nothing was
 * recorded; the message says what happened, for a person.
 */
export class CompactionError extends LatheError {
  constructor(message: string, options?: ErrorOptions) {
    super("compaction", message, options);
  }
}
