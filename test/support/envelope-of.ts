import type { Envelope, OutputEnvelope } from "../../src/main/engine/tools/envelope.ts";

/** The data of an output envelope; fails with the error text when the call failed (or made none). */
export function outputOf<Data = unknown>(envelope: Envelope | undefined): Data {
  if (envelope?.type !== "output")
    throw new Error(
      `expected an output envelope, got ${envelope ? `error: ${envelope.error_text}` : "no envelope"}`,
    );
  return (envelope as OutputEnvelope<Data>).data;
}

/** The error text of an error envelope; fails when the call succeeded (or made none). */
export function errorOf(envelope: Envelope | undefined): string {
  if (envelope?.type !== "error")
    throw new Error(
      `expected an error envelope, got ${envelope ? "output" : "no envelope"}: ${JSON.stringify(envelope)}`,
    );
  return envelope.error_text;
}
