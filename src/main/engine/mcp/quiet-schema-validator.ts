import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { jsonSchemaLibrary } from "../tools/json-schema-library.ts";

/**
 * The JSON Schema validator the MCP SDK's client is given in place of its default, which makes
 * an ajv that reports to the console: a tool's output schema naming a format ajv does not know
 * (`format: "x-ticket-id"`, legal JSON Schema) printed `unknown format … ignored` on the user's
 * terminal, in the middle of `lathe run`'s output. This one is Lathe's own ajv (draft 2020-12,
 * as Lathe's check of a tool's answer, mcp-output-schema.ts), reporting to VALIDATOR_LOGGER:
 * nothing is printed. The client uses it only in its own callTool, which Lathe does not call;
 * a future use still prints nothing.
 */
export function quietSchemaValidator(): jsonSchemaValidator {
  let ajv: Ajv2020 | undefined;
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      if (!ajv) {
        const { Ajv2020: Validator, addFormats } = jsonSchemaLibrary();
        // Nothing filled in or coerced: the answer is checked as the server sent it.
        ajv = new Validator({ allErrors: true, strict: false, validateSchema: false });
        addFormats(ajv);
      }
      const checker = ajv;
      // A draft named by `$schema` is read as 2020-12, as Lathe reads every tool's schema.
      const { $schema: _draft, ...rest } = schema;
      const check = checker.compile(rest);
      return (input) =>
        check(input)
          ? { valid: true, data: input as T, errorMessage: undefined }
          : { valid: false, data: undefined, errorMessage: checker.errorsText(check.errors) };
    },
  };
}
