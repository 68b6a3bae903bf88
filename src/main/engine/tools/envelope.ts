/** Metadata every envelope carries. */
export interface EnvelopeMetadata {
  duration_ms: number;
  truncated?: boolean;
  output_path?: string;
  /** With `truncated`: what the result leaves out and where all of it is (see truncation.ts). */
  left_out?: string;
  /** With `truncated`: how to see the rest (the commands that read the file holding it). */
  read_rest?: string;
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
