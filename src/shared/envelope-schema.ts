import { z } from "zod";

const EnvelopeMetadataSchema = z.strictObject({
  duration_ms: z.number(),
  truncated: z.boolean().optional(),
  output_path: z.string().optional(),
  left_out: z.string().optional(),
});

/** The one shape every tool call returns, whatever happened. */
export const EnvelopeSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("output"), data: z.unknown(), metadata: EnvelopeMetadataSchema }),
  z.strictObject({ type: z.literal("error"), error_text: z.string(), metadata: EnvelopeMetadataSchema }),
]);

export type Envelope = z.output<typeof EnvelopeSchema>;
