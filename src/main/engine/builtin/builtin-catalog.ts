import type { JsonSchema } from "../tools/contract.ts";

/**
 * The built-in tools' parameters as published JSON Schema, by tool id, written into the CLI
 * bundle when it is built (scripts/build-cli.ts generates this module's content from the
 * built-ins' zod schemas): a start from the bundle then builds no zod schema to list or check a
 * built-in. Running from the sources it is empty, and each schema is generated on first use.
 * test/cli-bundle.test.ts checks that the bundle lists exactly the schemas the sources give.
 */
export const BUILTIN_PARAMETERS: Readonly<Record<string, JsonSchema>> = {};
