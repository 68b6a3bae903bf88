import { z } from "zod";

const EnvelopeMetadataSchema = z.strictObject({
  duration_ms: z.number(),
  truncated: z.boolean().optional(),
  output_path: z.string().optional(),
  /** A cut result: what it leaves out and where all of it is (what a person is shown). */
  left_out: z.string().optional(),
  /** A cut result: how the model reads the rest (tail, grep or read the file). */
  read_rest: z.string().optional(),
});

/** The one shape every tool call returns, whatever happened. */
export const EnvelopeSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("output"), data: z.unknown(), metadata: EnvelopeMetadataSchema }),
  z.strictObject({ type: z.literal("error"), error_text: z.string(), metadata: EnvelopeMetadataSchema }),
]);

export type Envelope = z.output<typeof EnvelopeSchema>;
