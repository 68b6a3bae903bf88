import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { latheVersion } from "../config/install-root.ts";
import { deferredSchemaValidator } from "./deferred-schema-validator.ts";
import type { McpSdk } from "./mcp-sdk.ts";
import { quietSchemaValidator } from "./quiet-schema-validator.ts";

/** How Lathe names itself to a server in the handshake: its own version, from its package.json. */
const clientInfo = () => ({ name: "lathe", version: latheVersion() });

/**
 * The SDK's client as Lathe makes it for every server: named `lathe`, asking for no client
 * capabilities, with a schema validator that compiles only when used and never prints.
 */
export function newMcpClient(sdk: McpSdk): Client {
  return new sdk.Client(clientInfo(), {
    capabilities: {},
    jsonSchemaValidator: deferredSchemaValidator(quietSchemaValidator),
  });
}
