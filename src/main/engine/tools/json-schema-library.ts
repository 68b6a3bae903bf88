import { createRequire } from "node:module";
import type { Ajv2020, Options } from "ajv/dist/2020.js";
import type { Plugin } from "ajv";

/** What Lathe uses of ajv: the draft 2020-12 validator and the formats plugin. */
interface JsonSchemaLibrary {
  Ajv2020: typeof Ajv2020;
  addFormats: Plugin<unknown>;
}

let library: JsonSchemaLibrary | undefined;

const UNKNOWN_FORMAT = /^unknown format "(.*)" ignored in schema at path "(.*)"$/s;

/**
 * Where ajv's messages go instead of the user's terminal (ajv writes them with console.warn).
 * A format ajv does not know (`format: "x-ticket-id"`: any name is legal JSON Schema) is simply
 * not checked, as JSON Schema says of formats: nothing to say. ajv logs an error only just
 * before it throws the same failure, which reaches the caller; and logs no message at all with
 * the options Lathe gives it ($comment not handled, strict off), so any other warning is
 * something Lathe did not plan for, thrown for whoever compiled the schema to report.
 */
export const VALIDATOR_LOGGER = {
  log(): void {},
  warn(...parts: unknown[]): void {
    const message = parts.map(String).join(" ");
    if (UNKNOWN_FORMAT.test(message)) return;
    throw new Error(`The JSON Schema validator reported: ${message}`);
  },
  error(): void {},
};

/**
 * ajv, loaded on first use — required rather than imported, so that its first use can stay
 * synchronous (registering an MCP tool checks its schema): a process that validates nothing with
 * it never loads it, and the built-ins' validators are compiled when the CLI bundle is built
 * (builtin/builtin-catalog.ts). The one place that loads it; every validator it makes reports
 * to VALIDATOR_LOGGER, never to stderr.
 */
export function jsonSchemaLibrary(): JsonSchemaLibrary {
  if (!library) {
    const require = createRequire(import.meta.url);
    const { Ajv2020: Validator } = require("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 };
    const formats = require("ajv-formats") as { default: Plugin<unknown> };
    class QuietValidator extends Validator {
      constructor(options: Options = {}) {
        super({ ...options, logger: VALIDATOR_LOGGER });
      }
    }
    library = { Ajv2020: QuietValidator, addFormats: formats.default };
  }
  return library;
}

let formats: ReadonlySet<string> | undefined;

/** The formats Lathe's validators check (ajv-formats'); a schema may name others, left unchecked. */
export function knownFormats(): ReadonlySet<string> {
  if (!formats) {
    const { Ajv2020: Validator, addFormats } = jsonSchemaLibrary();
    const validator = new Validator();
    addFormats(validator);
    formats = new Set(Object.keys(validator.formats));
  }
  return formats;
}
