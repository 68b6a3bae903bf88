import { LatheError } from "./lathe-error.ts";

const marker = Symbol.for("lathe.error.tool-call");

/**
 * An error the model can fix by calling differently: a bad argument, a path outside the
 * workspace, a file that must be read first. The pipeline turns it into an error envelope whose
 * `error_text` is exactly this message, so the message must say what was wrong and how to fix it.
 */
export class ToolCallError extends LatheError {
  readonly [marker] = true;

  constructor(message: string, code = "tool_call", options?: ErrorOptions) {
    super(code, message, options);
  }

  static override isInstance(value: unknown): value is ToolCallError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
