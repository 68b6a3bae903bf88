import type { ValidateFunction } from "ajv/dist/2020.js";

// The JSON Schema 2020-12 meta-schema's validator as the CLI bundle carries it: ajv's standalone
// code, compiled ahead of time with the options tools/schema-check.ts checks schemas with.
// scripts/build-cli.ts generates this module's content when it builds the bundle. Compiling the
// meta-schema costs a process a few hundred milliseconds the first time a plugin's or an MCP
// server's tool schema is checked; from the bundle that check loads no JSON Schema compiler.
// Running from the sources it is undefined, and the meta-schema is compiled on first use.
// test/cli-bundle.test.ts checks that the bundle refuses the schemas the sources refuse.

export const JSON_SCHEMA_CHECK: ValidateFunction | undefined = undefined;
