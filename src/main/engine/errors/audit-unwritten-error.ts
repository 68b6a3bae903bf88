import { StoreError } from "./store-error.ts";

/**
 * The engine closed with tool calls (run, or refused) that its audit trail could not record.
 * `calls` counts them; the message says why the trail could not be written (its `cause`).
 */
export class AuditUnwrittenError extends StoreError {
  readonly calls: number;

  constructor(calls: number, reason: string, options?: ErrorOptions) {
    super(
      `${calls} tool call${calls === 1 ? " is" : "s are"} missing from the audit trail, which could not be written: ${reason}`,
      options,
    );
    this.calls = calls;
  }
}
