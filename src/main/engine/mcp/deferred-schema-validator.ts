import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation";

/**
 * The JSON Schema validator handed to the MCP SDK's client, compiling a schema only when the SDK
 * first validates with it. The client asks for a validator of every listed tool's output schema
 * as `tools/list` is answered (cacheToolMetadata), for its own `callTool`, which Lathe does not
 * use: a tool's answer is checked against the schema of the tool Lathe bound
 * (mcp-output-schema.ts). Compiled there too, each schema was compiled twice at every start, on
 * the path from a server's answer to the first model request.
 */
export function deferredSchemaValidator(make: () => jsonSchemaValidator): jsonSchemaValidator {
  let real: jsonSchemaValidator | undefined;
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      let compiled: JsonSchemaValidator<T> | undefined;
      return (input) => {
        real ??= make();
        compiled ??= real.getValidator<T>(schema);
        return compiled(input);
      };
    },
  };
}
