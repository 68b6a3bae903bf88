import { ToolCallError } from "./tool-call-error.ts";

/** The capability surface refused a path, host or command the tool did not declare. */
export class CapabilityDeniedError extends ToolCallError {
  readonly requested: string;

  constructor(requested: string, message: string) {
    super(message, "capability_denied");
    this.requested = requested;
  }
}
