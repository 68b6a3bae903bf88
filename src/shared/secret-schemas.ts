// Cloud provider keys as the UI manages them (`secrets.*`): which keys exist and where they come
// from, never their values; a value only ever travels from the UI to the host, once, to be stored.
import { z } from "zod";

/** The keys a person can keep, and the environment variable each is handed to the provider as. */
export const PROVIDER_KEY_VARIABLES = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  brave: "BRAVE_API_KEY",
} as const;

export const SecretNameSchema = z.enum(["anthropic", "openai", "brave"]);

/** Where the keys stand; no value is ever part of it. */
export const SecretsStatusSchema = z.strictObject({
  /** Whether this host can keep keys in the OS keychain. */
  available: z.boolean(),
  /** Why it cannot, and what to do instead (set only when `available` is false). */
  explanation: z.string().optional(),
  /** Keys kept (encrypted) by the host. */
  stored: z.array(SecretNameSchema),
  /** Keys the user set as environment variables of the host (these win over stored ones). */
  fromEnvironment: z.array(SecretNameSchema),
});

const MAX_SECRET_LENGTH = 4096;

/** An API key: non-empty, printable, no spaces or line breaks inside (surrounding blanks are dropped). */
const SecretValueSchema = z
  .string()
  .min(1, { message: "the key is empty: paste the whole key", abort: true })
  .max(MAX_SECRET_LENGTH, `the key is longer than ${MAX_SECRET_LENGTH} characters: paste only the key`)
  .refine((value) => /^[\x21-\x7e]+$/.test(value.trim()), {
    message: "a key is one word of printable characters: paste only the key, without spaces or line breaks",
  });

export const SecretSetSchema = z.strictObject({ name: SecretNameSchema, value: SecretValueSchema });
export const SecretRemoveSchema = z.strictObject({ name: SecretNameSchema });

export type SecretName = z.output<typeof SecretNameSchema>;
export type SecretsStatus = z.output<typeof SecretsStatusSchema>;
