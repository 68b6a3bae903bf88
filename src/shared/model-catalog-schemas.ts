// The model picker's shapes: what is detected (local servers with their models, GGUF files in the
// models folder, cloud providers with a key), the per-project choice, and adding a GGUF file.
import { z } from "zod";

const CatalogModelSchema = z.strictObject({
  /** `PROVIDER:MODEL`, as a run names it. */
  id: z.string(),
  name: z.string(),
  /** Its context window in tokens, when known. */
  contextTokens: z.number().int().positive().optional(),
});

const LocalServerSchema = z.strictObject({
  provider: z.string(),
  label: z.string(),
  baseURL: z.string(),
  /** Settings name its address; otherwise its usual port was tried. */
  configured: z.boolean(),
  state: z.enum(["running", "stopped", "error"]),
  models: z.array(CatalogModelSchema),
  /** Not running and how to start it, or what went wrong. */
  message: z.string().optional(),
});

const GgufEntrySchema = z.strictObject({
  id: z.string(),
  path: z.string(),
  name: z.string(),
  bytes: z.number(),
  contextTokens: z.number().int().positive().optional(),
  title: z.string().optional(),
  problem: z.string().optional(),
});

const CloudProviderSchema = z.strictObject({
  provider: z.string(),
  label: z.string(),
  keyVariable: z.string(),
  keySet: z.boolean(),
  models: z.array(CatalogModelSchema),
});

export const ModelCatalogSchema = z.strictObject({
  local: z.array(LocalServerSchema),
  gguf: z.strictObject({
    folder: z.string(),
    files: z.array(GgufEntrySchema),
    problem: z.string().optional(),
  }),
  cloud: z.array(CloudProviderSchema),
  /** The model this folder uses by default, as the person last picked it here. */
  projectModel: z.string().optional(),
  /** The settings' `defaultModel`, if any. */
  defaultModel: z.string().optional(),
  /** Things to tell the person (project model settings ignored until trusted). */
  notices: z.array(z.string()),
});

const ModelSpecSchema = z
  .string()
  .trim()
  .max(4096)
  .regex(/^[a-z][a-z0-9-]*:.+$/, 'use PROVIDER:MODEL, e.g. "ollama:llama3.2"');

/** Remember the model for this folder (null forgets it). */
export const ProjectModelSchema = z.strictObject({ model: ModelSpecSchema.nullable() });

/** Add a GGUF file (an absolute path on the host) to `$LATHE_HOME/models`. */
export const AddGgufSchema = z.strictObject({
  path: z.string().trim().min(1, "enter the path of a .gguf file").max(4096),
});

export type CatalogModel = z.output<typeof CatalogModelSchema>;
export type LocalServer = z.output<typeof LocalServerSchema>;
export type GgufEntry = z.output<typeof GgufEntrySchema>;
export type ModelCatalog = z.output<typeof ModelCatalogSchema>;
