import { createRequire } from "node:module";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { Plugin } from "ajv";

/** What Lathe uses of ajv: the draft 2020-12 validator and the formats plugin. */
interface JsonSchemaLibrary {
  Ajv2020: typeof Ajv2020;
  addFormats: Plugin<unknown>;
}

let library: JsonSchemaLibrary | undefined;

/**
 * ajv, loaded on first use — required rather than imported, so that its first use can stay
 * synchronous (registering an MCP tool checks its schema): a process that validates nothing with
 * it never loads it, and the built-ins' validators are compiled when the CLI bundle is built
 * (builtin/builtin-catalog.ts). The one place that loads it.
 */
export function jsonSchemaLibrary(): JsonSchemaLibrary {
  if (!library) {
    const require = createRequire(import.meta.url);
    const { Ajv2020: Validator } = require("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 };
    const formats = require("ajv-formats") as { default: Plugin<unknown> };
    library = { Ajv2020: Validator, addFormats: formats.default };
  }
  return library;
}
