import type { ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "../tools/contract.ts";

// The built-in tools as the CLI bundle carries them, by tool id: their parameters as published
// JSON Schema, and validators compiled ahead of time from exactly those schemas (ajv's standalone
// code, compiled as tools/argument-validator.ts compiles). scripts/build-cli.ts generates this
// module's content when it builds the bundle, from the built-ins' zod schemas: a start from the
// bundle then builds no zod schema to list a built-in and loads no JSON Schema compiler to check
// a call to one. Running from the sources both tables are empty, and each schema is generated
// (and compiled) on first use. test/cli-bundle.test.ts checks that the bundle lists exactly the
// schemas the sources give and refuses bad arguments as they do.

export const BUILTIN_PARAMETERS: Readonly<Record<string, JsonSchema>> = {};

export const BUILTIN_VALIDATORS: Readonly<Record<string, ValidateFunction>> = {};
