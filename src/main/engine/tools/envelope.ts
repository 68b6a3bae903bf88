/** Metadata every envelope carries. */
export interface EnvelopeMetadata {
  duration_ms: number;
  truncated?: boolean;
  output_path?: string;
  /** With `truncated`: what the result leaves out and how to see it (see truncation.ts). */
  left_out?: string;
}

export interface OutputEnvelope<Data = unknown> {
  type: "output";
  data: Data;
  metadata: EnvelopeMetadata;
}

interface ErrorEnvelope {
  type: "error";
  error_text: string;
  metadata: EnvelopeMetadata;
}

/** The one shape every tool call returns, whatever happened. */
export type Envelope<Data = unknown> = OutputEnvelope<Data> | ErrorEnvelope;

export function outputEnvelope<Data>(data: Data, metadata: EnvelopeMetadata): OutputEnvelope<Data> {
  return { type: "output", data, metadata };
}

export function errorEnvelope(errorText: string, metadata: EnvelopeMetadata): ErrorEnvelope {
  return { type: "error", error_text: errorText, metadata };
}
